import { type IncomingMessage, request, type Server, type ServerResponse } from 'node:http'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { parseOptions } from '../src/index.js'
import { spawnCli, stopCliProcesses } from './cli-process.js'
import { servedForTest, setup } from './helpers.js'
import { sinkRegistry } from './sink-registry.js'

const MiB = 1024 * 1024

afterAll(stopCliProcesses)

describe('control-plane body limit', () => {
  it('is the API limit, 1 MiB by default, on every /_sandbox route', async () => {
    expect(parseOptions({}).bodyLimit).toBe(MiB)
    const { call } = await setup()
    const over = JSON.stringify({ name: 'x'.repeat(MiB) })
    for (const path of ['/_sandbox/partners', '/_sandbox/scenarios', '/_sandbox/events']) {
      const res = await call('POST', path, {
        creds: null,
        raw: over,
        headers: { 'content-type': 'application/json' },
      })
      expect(res.status, path).toBe(413)
      expect(res.json).toMatchObject({ success: false, error: { code: 'payload_too_large' } })
      expect(res.json.error.message).toContain(String(MiB))
    }
  })

  it('allows a snapshot restore up to its own limit (16 MiB by default), and no more', async () => {
    expect(parseOptions({}).snapshotLimit).toBe(16 * MiB)
    const { call } = await setup({ snapshotLimit: 3 * MiB })
    const exported = await call('GET', '/_sandbox/snapshot', { creds: null })
    // A 2 MiB restore passes the limit and is judged on its content.
    const padded = { ...exported.json, padding: 'x'.repeat(2 * MiB) }
    const big = await call('POST', '/_sandbox/snapshot', { creds: null, body: padded })
    expect(big.status).not.toBe(413)
    const tooBig = { ...exported.json, padding: 'x'.repeat(3 * MiB) }
    const refused = await call('POST', '/_sandbox/snapshot', { creds: null, body: tooBig })
    expect(refused.status).toBe(413)
  })
})

/**
 * What the server did with each request: the status it answered and how many bytes it had
 * read from the connection (headers included) when its answer was finished. Counted on the
 * server's own socket, so the client's speed and the machine's load do not enter into it.
 */
function watchAnswers(server: Server) {
  const answers: { path: string; status: number; readBeforeAnswer: number }[] = []
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    res.once('finish', () =>
      answers.push({
        path: req.url ?? '',
        status: res.statusCode,
        readBeforeAnswer: req.socket.bytesRead,
      }),
    )
  })
  return answers
}

/**
 * Offers a 20 MiB body from one reused chunk (the test holds no big buffer) and stops writing
 * once the answer arrives or the connection ends, as a client that reads its answer would.
 * Answers the status the client saw, or the error that ended the connection first.
 */
function send20MiB(port: number, path: string, chunked: boolean) {
  return new Promise<{ status?: number; error?: string }>((resolve) => {
    const size = 20 * MiB
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (!chunked) headers['content-length'] = String(size)
    let done = false
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      done = true
      resolve({ status: res.statusCode })
      res.resume()
      req.destroy()
    })
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!done) resolve({ error: error.code ?? error.message })
      done = true
    })
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let offered = 0
    const pump = () => {
      while (offered < size && !done) {
        offered += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
      if (!done) req.end()
    }
    pump()
  })
}

it('refuses a 20 MiB control-plane body with 413 having read at most its limit', async () => {
  // With a snapshot limit of 1 MiB, no route of this sandbox may read more than 1 MiB of a body
  // before refusing it: a declared length is refused from the header alone, a chunked body
  // once its count passes the limit.
  const sandbox = await servedForTest({ logLevel: 'warn', snapshotLimit: MiB })
  const answers = watchAnswers(sandbox.server)
  for (const path of ['/_sandbox/snapshot', '/_sandbox/events', '/_sandbox/sink/big']) {
    for (const chunked of [false, true]) {
      const what = `${path} ${chunked ? 'chunked' : 'declared'}`
      const before = answers.length
      const seen = await send20MiB(sandbox.port, path, chunked)
      const answer = await vi.waitFor(
        () => {
          const found = answers.slice(before).find((a) => a.path === path)
          if (!found) throw new Error(`${what}: no answer finished yet`)
          return found
        },
        { timeout: 20_000 },
      )
      expect(answer.status, what).toBe(413)
      // The client sees that answer (unless the server hung up on its unread remainder first).
      if (seen.status !== undefined) expect(seen.status, what).toBe(413)
      else expect(seen.error, what).toMatch(/ECONNRESET|EPIPE/)
      // The server stops reading when its request stream is full (64 KiB for a body nobody
      // reads), so at the answer it has read the limit plus a few socket reads: far from 20 MiB.
      const limitRead = chunked ? MiB : 0
      expect(answer.readBeforeAnswer, what).toBeLessThan(limitRead + 512 * 1024)
    }
  }
}, 60_000)

it('takes the snapshot limit from --snapshot-limit', async () => {
  const cli = spawnCli(['--port', '0', '--log-level', 'warn', '--snapshot-limit', String(MiB)])
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(cli.output.stderr)), 20_000)
    cli.child.stdout?.on('data', () => {
      const m = /API\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(cli.output.stdout)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    })
  })
  const restore = (bytes: number) =>
    fetch(`http://127.0.0.1:${port}/_sandbox/snapshot`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(bytes) }),
    })
  const over = await restore(MiB + 1024)
  expect(over.status).toBe(413)
  expect(await over.json()).toMatchObject({ error: { code: 'payload_too_large' } })
  // Under the flag's limit the restore is judged on its content, not refused for its size.
  expect((await restore(MiB - 1024)).status).not.toBe(413)
}, 30_000)

describe('sinks', () => {
  const delivery = (body: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    now: new Date(0).toISOString(),
  })

  it('keep at most maxSinks sinks, forgetting the least recently used', async () => {
    const sinks = await sinkRegistry({ maxSinks: 3, maxRequests: 10, maxBytes: 10_000 })
    for (const name of ['a', 'b', 'c']) await sinks.receive(name, delivery('{}'))
    await sinks.receive('a', delivery('{}')) // a is now the most recent
    await sinks.receive('d', delivery('{}'))
    expect(await sinks.size()).toBe(3)
    expect((await sinks.read('b')).data).toEqual([])
    expect((await sinks.read('a')).data).toHaveLength(2)
  })

  it('keep the newest requests within the count and byte caps', async () => {
    const sinks = await sinkRegistry({ maxSinks: 3, maxRequests: 5, maxBytes: 1_000 })
    for (let i = 0; i < 8; i++) await sinks.receive('s', delivery(`{"n":${i}}`))
    expect((await sinks.read('s')).data.map((r) => r.body)).toEqual(
      [7, 6, 5, 4, 3].map((n) => `{"n":${n}}`),
    )
    await sinks.receive('s', delivery('x'.repeat(900)))
    const kept = (await sinks.read('s')).data
    expect(kept[0]?.body).toHaveLength(900)
    // Each request also counts its headers: content-type: application/json, 28 bytes.
    const bytes = kept.reduce((sum, r) => sum + r.body.length + 28, 0)
    expect(bytes).toBeLessThanOrEqual(1_000)
  })

  it('are not created by reading them', async () => {
    const { sandbox, call } = await setup()
    for (let i = 0; i < 5; i++) {
      const res = await call('GET', `/_sandbox/sink/never-${i}`, { creds: null })
      expect(res.status).toBe(200)
      expect(res.json.data).toEqual([])
    }
    expect(await sandbox.services.sinks.size()).toBe(0)
  })

  it('refuse names that are too long or unsafe', async () => {
    const { call } = await setup()
    for (const name of ['x'.repeat(65), 'a.b', '%F0%9F%92%A5']) {
      const res = await call('POST', `/_sandbox/sink/${name}`, { creds: null, body: {} })
      expect(res.status, name).toBe(400)
    }
  })
})
