import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { type CliProcess, spawnCli, stopCliProcesses } from './cli-process.js'

/**
 * The kill -9 property over a real process: every write the sandbox acknowledged is there
 * after the process is killed without warning and started again on the same data file.
 */

const auth = {
  'X-Partner-Key': DEFAULT_PARTNER.api_key,
  'X-Partner-Secret': DEFAULT_PARTNER.api_secret,
}

interface Cli extends CliProcess {
  url: string
}

let dir: string
let file: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-crash-'))
  file = join(dir, 'sandbox.json')
})

afterEach(async () => {
  await stopCliProcesses()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts the CLI from source and resolves with its API URL once the banner is printed. */
function startCli(args: string[], timeoutMs = 15_000): Promise<Cli> {
  const cli = spawnCli(['--host', '127.0.0.1', '--port', '0', ...args])
  return new Promise<Cli>((resolve, reject) => {
    const timer = setTimeout(() => {
      cli.child.kill('SIGKILL')
      reject(
        new Error(
          `no banner within ${timeoutMs} ms\nstdout: ${cli.output.stdout}\nstderr: ${cli.output.stderr}`,
        ),
      )
    }, timeoutMs)
    cli.child.stdout?.on('data', () => {
      const match = /^ {2}API {7}(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(cli.output.stdout)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve({ ...cli, url: match[1] })
      }
    })
    void cli.exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(
        new Error(`exited (${code ?? signal}) before the banner\nstderr: ${cli.output.stderr}`),
      )
    })
  })
}

async function patchName(url: string, name: string) {
  const res = await fetch(`${url}/api/v1/partner/me`, {
    method: 'PATCH',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ display_name: name }),
  })
  expect(res.status).toBe(200)
  expect(((await res.json()) as { partner: { display_name: string } }).partner.display_name).toBe(
    name,
  )
}

async function displayName(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/partner/me`, { headers: auth })
  expect(res.status).toBe(200)
  return ((await res.json()) as { partner: { display_name: string } }).partner.display_name
}

async function kill9(cli: Cli) {
  process.kill(cli.child.pid as number, 'SIGKILL')
  expect(await cli.exited).toEqual({ code: null, signal: 'SIGKILL' })
}

const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '')

describe('kill -9', () => {
  it('keeps a write acknowledged just before the kill', { timeout: 60_000 }, async () => {
    const first = await startCli(['--data', file, '--log-level', 'silent'])
    await patchName(first.url, 'Acme Killed Right After')
    await kill9(first)

    // Nothing shut down cleanly: the write is only in the journal.
    expect(read(`${file}.journal`)).toContain('Acme Killed Right After')
    expect(read(file)).not.toContain('Acme Killed Right After')

    const second = await startCli(['--data', file, '--log-level', 'silent'])
    expect(await displayName(second.url)).toBe('Acme Killed Right After')
  })

  it('keeps the last of 20 writes in a row, killed after the last ack', {
    timeout: 60_000,
  }, async () => {
    const first = await startCli(['--data', file, '--log-level', 'silent'])
    for (let i = 1; i <= 20; i++) await patchName(first.url, `Acme write ${i}`)
    await kill9(first)

    const second = await startCli(['--data', file, '--log-level', 'silent'])
    expect(await displayName(second.url)).toBe('Acme write 20')

    // Killed again after more writes on top of the replayed state: still nothing lost.
    for (let i = 21; i <= 25; i++) await patchName(second.url, `Acme write ${i}`)
    await kill9(second)
    const third = await startCli(['--data', file, '--log-level', 'silent'])
    expect(await displayName(third.url)).toBe('Acme write 25')
  })

  it('keeps every acknowledged write of a concurrent burst', { timeout: 60_000 }, async () => {
    const first = await startCli(['--data', file, '--log-level', 'silent'])
    const acknowledged: string[] = []
    let killed: Promise<void> | undefined
    const requests = Array.from({ length: 30 }, (_, i) =>
      fetch(`${first.url}/_sandbox/partners`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Burst ${i}` }),
      })
        .then(async (res) => {
          if (res.status !== 201) throw new Error(`status ${res.status}`)
          const body = (await res.json()) as { partner: { id: string } }
          acknowledged.push(body.partner.id)
          // Kill the moment the 10th acknowledgement arrives, with the rest still in flight.
          if (acknowledged.length === 10) killed = kill9(first)
        })
        .catch(() => undefined),
    )
    await Promise.all(requests)
    // kill9 asserts the first process died of the kill mid-burst (SIGKILL, no clean stop).
    await killed
    expect(acknowledged.length).toBeGreaterThanOrEqual(10)

    const second = await startCli(['--data', file, '--log-level', 'silent'])
    const res = await fetch(`${second.url}/_sandbox/partners`)
    const ids = ((await res.json()) as { data: { id: string }[] }).data.map((p) => p.id)
    for (const id of acknowledged) expect(ids).toContain(id)
  })
})

describe('SIGTERM', () => {
  it('exits 0 and leaves a compacted data file holding the writes', {
    timeout: 60_000,
  }, async () => {
    const first = await startCli(['--data', file, '--log-level', 'silent'])
    for (let i = 1; i <= 5; i++) await patchName(first.url, `Acme term ${i}`)
    expect(read(`${file}.journal`)).toContain('Acme term 5')

    first.child.kill('SIGTERM')
    expect(await first.exited).toEqual({ code: 0, signal: null })

    // Compacted: the snapshot holds the last write, the journal is empty (or gone).
    expect(read(`${file}.journal`)).toBe('')
    expect(existsSync(`${file}.journal.compacting`)).toBe(false)
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    expect(doc.collections.partners[DEFAULT_PARTNER.id].display_name).toBe('Acme term 5')

    const second = await startCli(['--data', file, '--log-level', 'silent'])
    expect(await displayName(second.url)).toBe('Acme term 5')
  })
})
