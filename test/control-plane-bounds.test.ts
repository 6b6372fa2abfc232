import { request } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { parseOptions } from '../src/index.js'
import { SinkRegistry } from '../src/webhooks/sink.js'
import { spawnCli, stopCliProcesses } from './cli-process.js'
import { testSandbox } from './helpers.js'

const MiB = 1024 * 1024

afterAll(stopCliProcesses)

describe('control-plane body limit', () => {
  it('is the API limit, 1 MiB by default, on every /_sandbox route', async () => {
    expect(parseOptions({}).bodyLimit).toBe(MiB)
    const { call } = await testSandbox()
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
    const { call } = await testSandbox({ snapshotLimit: 3 * MiB })
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
 * Streams up to 20 MiB from one reused chunk (the test itself holds no big buffer) and stops
 * sending once the answer arrives, as a client that reads its answer would. Answers its status
 * and how much of the body had been written when the answer came.
 */
function send20MiB(port: number, path: string, chunked: boolean) {
  return new Promise<{ status: number; sent: number }>((resolve, reject) => {
    const size = 20 * MiB
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (!chunked) headers['content-length'] = String(size)
    let answered = false
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      answered = true
      resolve({ status: res.statusCode ?? 0, sent })
      res.resume()
      req.destroy()
    })
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let sent = 0
    const pump = () => {
      while (sent < size && !answered) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
      if (!answered) req.end()
    }
    pump()
  })
}

it('refuses a 20 MiB control-plane body with 413 before it has been sent whole', async () => {
  // A chunked body is read up to the route's limit before it is refused: with a snapshot
  // limit of 1 MiB (the flag), no route of this process may read more than 1 MiB.
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
  for (const path of ['/_sandbox/snapshot', '/_sandbox/events', '/_sandbox/sink/big']) {
    for (const chunked of [false, true]) {
      const { status, sent } = await send20MiB(port, path, chunked)
      const what = `${path} ${chunked ? 'chunked' : 'declared'}`
      expect(status, what).toBe(413)
      // Refused while most of the body was still on its way: a server that read it whole could
      // not answer before the client finished writing (loopback buffers hold a few MiB).
      expect(sent, what).toBeLessThan(12 * MiB)
    }
  }
}, 60_000)

describe('sinks', () => {
  const delivery = (body: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    now: new Date(0).toISOString(),
  })

  it('keep at most maxSinks sinks, forgetting the least recently used', () => {
    const sinks = new SinkRegistry({ maxSinks: 3, maxRequests: 10, maxBytes: 10_000 })
    for (const name of ['a', 'b', 'c']) sinks.receive(name, delivery('{}'))
    sinks.receive('a', delivery('{}')) // a is now the most recent
    sinks.receive('d', delivery('{}'))
    expect(sinks.size).toBe(3)
    expect(sinks.read('b').data).toEqual([])
    expect(sinks.read('a').data).toHaveLength(2)
  })

  it('keep the newest requests within the count and byte caps', () => {
    const sinks = new SinkRegistry({ maxSinks: 3, maxRequests: 5, maxBytes: 1_000 })
    for (let i = 0; i < 8; i++) sinks.receive('s', delivery(`{"n":${i}}`))
    expect(sinks.read('s').data.map((r) => r.body)).toEqual(
      [7, 6, 5, 4, 3].map((n) => `{"n":${n}}`),
    )
    sinks.receive('s', delivery('x'.repeat(900)))
    const kept = sinks.read('s').data
    expect(kept[0]?.body).toHaveLength(900)
    // Each request also counts its headers: content-type: application/json, 28 bytes.
    const bytes = kept.reduce((sum, r) => sum + r.body.length + 28, 0)
    expect(bytes).toBeLessThanOrEqual(1_000)
  })

  it('are not created by reading them', async () => {
    const { sandbox, call } = await testSandbox()
    for (let i = 0; i < 5; i++) {
      const res = await call('GET', `/_sandbox/sink/never-${i}`, { creds: null })
      expect(res.status).toBe(200)
      expect(res.json.data).toEqual([])
    }
    expect(sandbox.deps.sinks.size).toBe(0)
  })

  it('refuse names that are too long or unsafe', async () => {
    const { call } = await testSandbox()
    for (const name of ['x'.repeat(65), 'a.b', '%F0%9F%92%A5']) {
      const res = await call('POST', `/_sandbox/sink/${name}`, { creds: null, body: {} })
      expect(res.status, name).toBe(400)
    }
  })
})
