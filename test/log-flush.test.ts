import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { spawnCli, stopCliProcesses } from './cli-process.js'

/**
 * The request log is written asynchronously (src/log-destination.ts): a clean stop must still
 * write every line. The CLI runs as a child process with the default log settings; the signal
 * goes out as soon as the last answer is in, while lines may still be queued.
 */

afterEach(stopCliProcesses)

const apiUrl = /^ {2}API {7}(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m
const auth = {
  'X-Partner-Key': DEFAULT_PARTNER.api_key,
  'X-Partner-Secret': DEFAULT_PARTNER.api_secret,
}
const REQUESTS = 400
const PARALLEL = 8

async function started(env: Record<string, string> = {}) {
  const cli = spawnCli(['--port', '0'], env)
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = apiUrl.exec(cli.output.stdout)
      if (match?.[1]) resolve(match[1])
    }
    cli.child.stdout?.on('data', check)
    cli.exited.then(() => reject(new Error(`exited before the banner: ${cli.output.stderr}`)))
  })
  return { ...cli, url }
}

/** REQUESTS authenticated reads, PARALLEL at a time; answers each one's request id. */
async function requestIds(url: string): Promise<string[]> {
  const ids: string[] = []
  const stream = async (n: number) => {
    for (let i = n; i < REQUESTS; i += PARALLEL) {
      const res = await fetch(`${url}/api/v1/partner/me`, { headers: auth })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
      ids.push(res.headers.get('x-request-id') as string)
    }
  }
  await Promise.all(Array.from({ length: PARALLEL }, (_, n) => stream(n)))
  return ids
}

describe('request log on a clean stop', () => {
  it('SIGTERM: every request has its pretty line on stderr, then the stop line', async () => {
    const cli = await started()
    const ids = await requestIds(cli.url)
    cli.child.kill('SIGTERM')
    expect((await cli.exited).code).toBe(0)
    const lines = cli.output.stderr.split('\n')
    for (const id of ids) {
      const line = lines.find((l) => l.endsWith(`id=${id}`))
      expect(line, `no log line for ${id}`).toMatch(/ info {2}GET \/api\/v1\/partner\/me 200 /)
    }
    expect(lines.filter((l) => l.includes(' id=req_'))).toHaveLength(ids.length)
    expect(lines.findIndex((l) => l.includes('SIGTERM: stopping'))).toBeGreaterThan(
      lines.findLastIndex((l) => l.includes(' id=req_')),
    )
  })

  it('SIGINT with --log-format json: every request has its JSON line', async () => {
    const cli = await started({ SANDBOX_LOG_FORMAT: 'json' })
    const ids = await requestIds(cli.url)
    cli.child.kill('SIGINT')
    expect((await cli.exited).code).toBe(0)
    const entries = cli.output.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const logged = new Set(entries.map((e) => e.request_id))
    expect(ids.filter((id) => !logged.has(id))).toEqual([])
    expect(entries.at(-1)).toMatchObject({ level: 'info', msg: 'SIGINT: stopping' })
  })

  it('debug lines of a few KB each arrive whole, across the 64 KiB buffers of the writer', async () => {
    const cli = await started({ SANDBOX_LOG_LEVEL: 'debug' })
    // A refused (400) body is logged cut at 4,096 characters: a line of ~4 KB, 16 a buffer.
    const body = JSON.stringify({ email: 'long@example.com', first_name: 'n'.repeat(100_000) })
    const ids: string[] = []
    const stream = async () => {
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${cli.url}/api/v1/partner/auth/register`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body,
        })
        expect(res.status).toBe(400)
        await res.arrayBuffer()
        ids.push(res.headers.get('x-request-id') as string)
      }
    }
    await Promise.all(Array.from({ length: PARALLEL }, stream))
    cli.child.kill('SIGTERM')
    expect((await cli.exited).code).toBe(0)
    const lines = cli.output.stderr.split('\n')
    for (const id of ids) {
      const line = lines.find((l) => l.includes(`id=${id}`))
      expect(line, `no log line for ${id}`).toMatch(
        / info {2}POST \/api\/v1\/partner\/auth\/register 400 .*first_name.*n{4000}.*\(\d+ chars\)/,
      )
    }
  })
})
