import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'

/** The README's worked deposit flow, run as written (bash + curl) against a real sandbox. */
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const script = /## A worked deposit flow[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1]
// spawnSync only probes for the tools; the script must not block the event loop, since the
// sandbox answering it runs in this process.
const hasTools = ['bash', 'curl'].every((tool) => spawnSync(tool, ['--version']).status === 0)

let sandbox: RunningSandbox | undefined
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logLevel: 'silent' })
})
afterAll(() => sandbox?.close())

describe('the README worked deposit flow', () => {
  it.skipIf(!hasTools)(
    'runs as written: $TOKEN is set, the deposit settles by the clock',
    async () => {
      expect(script).toBeDefined()
      const url = sandbox?.url as string
      const run = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script as string], {
        env: { ...process.env, API: `${url}/api/v1`, SANDBOX: `${url}/_sandbox` },
        encoding: 'utf8',
        timeout: 60_000,
      })
      const lines = run.stdout.trim().split('\n')
      expect(lines[0]).toBe('active')
      expect(lines[1]).toMatch(
        /^open: http:\/\/127\.0\.0\.1:\d+\/api\/v1\/external-bank-account-connect\/connect\?token=/,
      )
      expect(lines[2]).toBe('succeeded')
      expect(lines[3]).toContain('available: 150')
    },
    90_000,
  )
})
