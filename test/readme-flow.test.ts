import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { allCodeBlocks, type CodeBlock } from './doc-blocks.js'
import { engineOptions } from './helpers.js'

/**
 * The command blocks of the README and docs/ marked `<!-- runnable -->`, run as written (bash +
 * curl) against a real sandbox on a free port, never 4010. Each runs with `PORT` set to that
 * port, as a reader sets it for a sandbox on another port; the README's first call and its
 * worked flow read it (`PORT=${PORT:-4010}`), and run unchanged. Blocks of docs/ that address
 * `http://127.0.0.1:4010` (or `localhost:4010`) literally have that address pointed at the
 * sandbox. curl fails on an HTTP error (`--fail-with-body`), so a block exits 0 only when every
 * call it makes succeeds.
 */
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const script = /## A worked deposit flow[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1]
const runnable = allCodeBlocks().filter((block) => block.runnable)
// spawnSync only probes for the tools; the script must not block the event loop, since the
// sandbox answering it runs in this process.
const hasTools = ['bash', 'curl'].every((tool) => spawnSync(tool, ['--version']).status === 0)
const DEFAULT_ORIGIN = /http:\/\/(?:127\.0\.0\.1|localhost):4010/g

/**
 * Runs `code` with bash against the sandbox at `url` (`PORT` set to its port; a literal default
 * address rewritten unless `asWritten`); curl fails on any 4xx or 5xx.
 */
async function run(code: string, url: string, asWritten = false) {
  const strictCurl = 'curl() { command curl --fail-with-body "$@"; }\n'
  const script = asWritten ? code : code.replace(DEFAULT_ORIGIN, url)
  return promisify(execFile)('bash', ['-euo', 'pipefail', '-c', strictCurl + script], {
    env: { ...process.env, PORT: new URL(url).port },
    encoding: 'utf8',
    timeout: 60_000,
  })
}

let sandbox: RunningSandbox | undefined
beforeAll(async () => {
  sandbox = await startSandbox({ ...engineOptions(), port: 0, logLevel: 'silent' })
})
afterAll(() => sandbox?.close())

describe('the README worked deposit flow', () => {
  it.skipIf(!hasTools)(
    'runs as written on the port it is given: $TOKEN is set, the deposit settles by the clock',
    async () => {
      expect(script).toBeDefined()
      const url = sandbox?.url as string
      // Not 4010, and nothing rewritten: the flow finds the sandbox through PORT alone.
      expect(sandbox?.port).not.toBe(4010)
      const { stdout } = await run(script as string, url, true)
      const lines = stdout.trim().split('\n')
      expect(lines[0]).toMatch(
        /^open: http:\/\/127\.0\.0\.1:\d+\/embed\/onboarding\?onboarding_id=/,
      )
      expect(lines[0]).toContain(`open: ${url}/`)
      expect(lines[1]).toBe('active')
      expect(lines[2]).toMatch(
        /^open: http:\/\/127\.0\.0\.1:\d+\/api\/v1\/external-bank-account-connect\/connect\?token=/,
      )
      expect(lines[3]).toBe('succeeded')
      // The balances print as JSON, not as a JavaScript object literal.
      expect(JSON.parse(lines[4] as string)).toMatchObject({ available: 150 })
      // The onboarding page the README says to open: it loads, and its own status call (what
      // the page polls) shows the onboarding the flow completed, with its card.
      const page = new URL((lines[0] as string).slice('open: '.length))
      expect((await fetch(page)).status).toBe(200)
      const id = page.searchParams.get('onboarding_id')
      const status = await fetch(new URL(`/embed/onboarding/${id}/status`, page), {
        headers: { authorization: `Bearer ${page.searchParams.get('access_token')}` },
      })
      expect(status.status).toBe(200)
      expect(await status.json()).toMatchObject({ completed: true })
    },
    90_000,
  )
})

describe('every runnable command block of the README and docs/', () => {
  it('finds the marked blocks: the first call, the worked flow, the sessions walk-through', () => {
    const where = runnable.map((block) => block.file)
    expect(where.filter((file) => file === 'README.md').length).toBeGreaterThanOrEqual(2)
    expect(where).toContain('docs/sessions.md')
    expect(runnable.some((block) => block.code === script)).toBe(true)
    for (const block of runnable) expect(block.lang, `${block.file}:${block.line}`).toBe('sh')
  })

  it("the README's blocks (the first call, the worked flow) read PORT: no fixed address", () => {
    const readmeBlocks = runnable.filter((block) => block.file === 'README.md')
    for (const block of readmeBlocks) {
      expect(block.code, `README.md:${block.line}`).toMatch(/^PORT=\$\{PORT:-4010\}$/m)
      expect(block.code, `README.md:${block.line}`).not.toMatch(DEFAULT_ORIGIN)
    }
  })

  it.skipIf(!hasTools)('fails a block whose call is refused, even with curl -s', async () => {
    const refused = run('curl -s http://127.0.0.1:4010/api/v1/partner/me\n', sandbox?.url as string)
    await expect(refused).rejects.toMatchObject({ code: 22 })
  })

  const cases = runnable.map((block): [string, CodeBlock] => [`${block.file}:${block.line}`, block])
  it.skipIf(!hasTools).each(cases)(
    '%s exits 0 against a fresh sandbox',
    async (_name, block) => {
      // Each block on its own sandbox: blocks register fixed emails, as a reader would.
      const own = await startSandbox({ ...engineOptions(), port: 0, logLevel: 'silent' })
      try {
        const result = await run(block.code, own.url).catch(
          (error: { code?: number; stdout?: string; stderr?: string }) => error,
        )
        expect(
          'code' in result ? result.code : 0,
          `${result.stdout ?? ''}\n${result.stderr ?? ''}`,
        ).toBe(0)
      } finally {
        await own.close()
      }
    },
    90_000,
  )
})
