import { copyFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { type Call, type Creds, createPartner, newUser, setup, tempDirForTest } from './helpers.js'

/**
 * Scenarios loaded through the control plane are kept with the data file: a partner that
 * names one finds it after a restart (or a crash). A partner whose scenario cannot be found
 * is shown to a person (a log line, the control plane's status) and its requests get a 503
 * that says so, never the default scenario's answers.
 */

let dir: string
let file: string
beforeEach(() => {
  dir = tempDirForTest('partner-sandbox-scenarios-')
  file = join(dir, 'sandbox.json')
})

/** A sandbox (setup) on the data file `path`, its error lines in `logs`. */
async function onFile(path = file) {
  const logs: string[] = []
  const t = await setup({ data: path, logLevel: 'error', onLog: (line) => logs.push(line) })
  return { ...t, logs }
}

const FIXED_OTP = {
  name: 'fixed-otp',
  description: 'Every login code is 424242.',
  otp: { code: '424242' },
}

/** Registers a user and asks for a login code; answers the code the inbox got. */
async function loginCode(call: Call, creds: Creds): Promise<string> {
  const user = newUser()
  const res = await call('POST', '/api/v1/partner/auth/register', { creds, body: user })
  expect(res.status, res.text).toBe(201)
  const login = await call('POST', '/api/v1/partner/auth/login', {
    creds,
    body: { email: user.email, password: user.password },
  })
  expect(login.status, login.text).toBe(200)
  const inbox = await call('GET', `/_sandbox/inbox?email=${encodeURIComponent(user.email)}`, {
    creds: null,
  })
  return inbox.json.data[0].code
}

async function partnerWithFixedOtp(call: Call) {
  const loaded = await call('POST', '/_sandbox/scenarios', { creds: null, body: FIXED_OTP })
  expect(loaded.status, loaded.text).toBe(201)
  return createPartner(call, { name: 'Fixed OTP', scenario: 'fixed-otp' })
}

describe('scenarios loaded through the control plane', () => {
  it('survive a restart with the data file', async () => {
    const first = await onFile()
    const partner = await partnerWithFixedOtp(first.call)
    expect(await loginCode(first.call, partner.creds)).toBe('424242')
    await first.sandbox.close()

    const second = await onFile()
    expect(await loginCode(second.call, partner.creds)).toBe('424242')
    const list = await second.call('GET', '/_sandbox/scenarios', { creds: null })
    expect(list.json.data).toContainEqual({
      name: 'fixed-otp',
      description: FIXED_OTP.description,
      bundled: false,
    })
    expect(second.logs).toEqual([])
  })

  it('survive a crash (the journal holds them before the answer)', async () => {
    const first = await onFile()
    const partner = await partnerWithFixedOtp(first.call)
    const copy = join(dir, 'crash.json')
    for (const suffix of ['', '.journal'])
      if (existsSync(`${file}${suffix}`)) copyFileSync(`${file}${suffix}`, `${copy}${suffix}`)
    const crashed = await onFile(copy)
    expect(await loginCode(crashed.call, partner.creds)).toBe('424242')
  })

  it('survive a reset, as configuration rather than data', async () => {
    const first = await onFile()
    await partnerWithFixedOtp(first.call)
    expect((await first.call('POST', '/_sandbox/reset', { creds: null })).status).toBe(200)
    await first.sandbox.close()
    const second = await onFile()
    const again = await createPartner(second.call, { name: 'Again', scenario: 'fixed-otp' })
    expect(await loginCode(second.call, again.creds)).toBe('424242')
  })
})

describe('a partner whose scenario cannot be found', () => {
  it('is logged, shown by the control plane, and its requests get 503 until it is loaded', async () => {
    const first = await onFile()
    const partner = await partnerWithFixedOtp(first.call)
    // As a data file from before scenarios were kept: the partner names one nobody has.
    first.sandbox.store.remove('scenarios', 'fixed-otp')
    await first.sandbox.close()

    const second = await onFile()
    expect(second.logs.join('\n')).toContain(`partner ${partner.id} names scenario "fixed-otp"`)
    const partners = await second.call('GET', '/_sandbox/partners', { creds: null })
    const row = partners.json.data.find((p: { id: string }) => p.id === partner.id)
    expect(row.scenario).toBe('fixed-otp')
    expect(row.scenario_error).toContain('"fixed-otp" is not loaded')
    const health = await second.call('GET', '/_sandbox/health', { creds: null })
    expect(health.json.problems).toHaveLength(1)
    expect(health.json.problems[0]).not.toContain(partner.id)

    const refused = await second.call('GET', '/api/v1/partner/me', { creds: partner.creds })
    expect(refused.status).toBe(503)
    expect(refused.json.error.code).toBe('service_unavailable')
    expect(refused.json.error.message).toContain('POST /_sandbox/scenarios')
    // Said once, not on every request.
    await second.call('GET', '/api/v1/partner/me', { creds: partner.creds })
    expect(second.logs.filter((l) => l.includes('fixed-otp'))).toHaveLength(1)

    const loaded = await second.call('POST', '/_sandbox/scenarios', {
      creds: null,
      body: FIXED_OTP,
    })
    expect(loaded.status).toBe(201)
    expect(await loginCode(second.call, partner.creds)).toBe('424242')
    const after = await second.call('GET', '/_sandbox/health', { creds: null })
    expect(after.json.problems).toEqual([])
  })

  it('the health check counts every partner that names one, and every partner', async () => {
    const { call, sandbox } = await setup()
    const before = (await call('GET', '/_sandbox/health', { creds: null })).json.partners
    expect(
      (await call('POST', '/_sandbox/scenarios', { creds: null, body: FIXED_OTP })).status,
    ).toBe(201)
    for (const name of ['Lost 1', 'Lost 2'])
      await createPartner(call, { name, scenario: 'fixed-otp' })
    await createPartner(call, { name: 'Kept', scenario: 'happy-path' })
    // Its row gone behind the sandbox's back, as with a data file from before scenarios were kept.
    await sandbox.services.state.transaction(async (tx) => tx.remove('scenarios', 'fixed-otp'))
    const health = await call('GET', '/_sandbox/health', { creds: null })
    expect(health.json.partners).toBe(before + 3)
    expect(health.json.problems).toEqual([expect.stringMatching(/^2 partner\(s\) name a scenario/)])
  })

  it('other partners are not affected', async () => {
    const first = await onFile()
    await partnerWithFixedOtp(first.call)
    first.sandbox.store.remove('scenarios', 'fixed-otp')
    await first.sandbox.close()
    const second = await onFile()
    const me = await second.call('GET', '/api/v1/partner/me')
    expect(me.status, me.text).toBe(200)
  })
})
