import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { type CliProcess, spawnCli, stopCliProcesses, until } from './cli-process.js'
import { type Call, engineOptions, httpCall, onboardedUser } from './helpers.js'

/**
 * The drift check (issue 41): `partner-sandbox proxy --upstream URL` forwards a partner's
 * traffic to another deployment and reports where it differs from the sandbox's contract. The
 * upstream here is a second sandbox with other production names (provider word `lithic`) and
 * answering rules (an undocumented status, a field of the wrong type); the report must
 * name exactly those differences, with secrets redacted.
 */

let upstream: RunningSandbox
let proxy: CliProcess
let viaProxy: Call
let direct: Call
let dir: string
const report = () => join(dir, 'drift.jsonl')
const recordDir = () => join(dir, 'exchanges')

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'proxy-drift-'))
  upstream = await startSandbox({
    ...engineOptions(),
    port: 0,
    logLevel: 'silent',
    providerName: 'lithic',
    signatureHeader: 'X-Lithic-Signature',
  })
  direct = httpCall(upstream.url)
  proxy = spawnCli([
    'proxy',
    '--upstream',
    upstream.url,
    '--port',
    '0',
    '--report',
    report(),
    '--record',
    recordDir(),
  ])
  await until(proxy, (out) => /Report\s/.test(out), 'proxy banner')
  const url = /^ {2}API\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(proxy.output.stdout)?.[1]
  viaProxy = httpCall(url as string)
}, 90_000)

afterAll(async () => {
  await stopCliProcesses()
  await upstream?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A global rule answering on the upstream, off the contract on purpose. */
async function answerRule(method: string, path: string, respond: Record<string, unknown>) {
  const res = await direct('POST', '/_sandbox/rules', {
    creds: null,
    body: { match: { method, path }, respond, off_contract: true },
  })
  expect(res.status, res.text).toBe(201)
}

describe('partner-sandbox proxy --upstream', () => {
  it('reports exactly where the upstream differs from the contract, secrets redacted', async () => {
    // Set up on the upstream directly: a user with a card (its answers carry lithic_consumer_id).
    const user = await onboardedUser(direct)
    const usage = await direct('GET', '/api/v1/partner/usage')
    await answerRule('GET', '/api/v1/partner/me', {
      status: 418,
      body: { success: false, error: { code: 'teapot', message: 'short and stout' } },
    })
    await answerRule('GET', '/api/v1/partner/usage', {
      status: 200,
      body: { ...usage.json, rate_limit: String(usage.json.rate_limit) },
    })

    // The partner's traffic, through the proxy, answered as the upstream answers.
    const me = await viaProxy('GET', '/api/v1/partner/me')
    expect(me.status).toBe(418)
    expect((await viaProxy('GET', '/api/v1/partner/usage')).json.rate_limit).toBe('1000')
    const profile = await viaProxy('GET', '/api/v1/partner/users/me', { headers: user.bearer })
    expect(profile.json.lithic_consumer_id).toMatch(/^cons_/)
    expect((await viaProxy('GET', '/api/v1/partner/webhooks')).status).toBe(200)

    const lines = readFileSync(report(), 'utf8').trim().split('\n')
    const found = lines.map((line) => {
      const d = JSON.parse(line)
      return `${d.operation} ${d.status} ${d.side} ${d.kind} ${d.where}`
    })
    expect(found.sort()).toEqual(
      [
        'getPartner 418 response status status 418',
        'getPartnerUsage 200 response type body.rate_limit',
        'getCurrentUser 200 response field body.provider_consumer_id',
        'getCurrentUser 200 response field body.lithic_consumer_id',
      ].sort(),
    )
    // The proxy says so as it goes, too.
    expect(proxy.output.stdout).toContain(
      'drift  getCurrentUser 200 response field body.lithic_consumer_id',
    )

    // Each exchange kept, with no secret: the partner's API secret, the session token.
    const files = readdirSync(recordDir())
    expect(files).toHaveLength(4)
    const recorded = files.map((f) => readFileSync(join(recordDir(), f), 'utf8')).join('\n')
    const token = user.bearer.authorization?.replace('Bearer ', '') ?? ''
    expect(token.length).toBeGreaterThan(20)
    expect(recorded).not.toContain(DEFAULT_PARTNER.api_secret)
    expect(recorded).not.toContain(token)
    expect(recorded).toContain('[redacted]')
    expect(recorded).toContain('lithic_consumer_id')
  })

  it('reports a request off the contract, and refuses an upstream not on 127.0.0.1', async () => {
    const before = readFileSync(report(), 'utf8').trim().split('\n').length
    const res = await viaProxy('POST', '/api/v1/partner/auth/login', {
      body: { email: 'nobody@example.test', password: 'Wrong-Passw0rd!', remember_me: true },
    })
    expect(res.status).toBe(400)
    const added = readFileSync(report(), 'utf8').trim().split('\n').slice(before)
    expect(added.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        operation: 'loginUser',
        side: 'request',
        kind: 'field',
        where: 'body.remember_me',
      }),
    ])
    const remote = spawnCli(['proxy', '--upstream', 'http://192.0.2.10:4010', '--port', '0'])
    const exit = await remote.exited
    expect(exit.code).toBe(2)
    expect(remote.output.stderr).toContain('must be on 127.0.0.1')
  })
})
