import { describe, expect, it } from 'vitest'
import { BATCH, ENDED_RETENTION_MS } from '../../src/domain/retention.js'
import { acme, newUser, setup, storedRows } from '../helpers.js'

/**
 * A user who logs in again and again must not leave a row per code behind for ever (issue
 * 22: 20,001 code rows after 20k logins). Every code, used, burnt, replaced or expired, leaves
 * under the retention rule (README "Retention": a day after it expired), on the sandbox clock
 * moved through the control plane, and with the clock frozen between moves, as a test suite
 * keeps it, the backlog still drains.
 */

const LOGINS = 1_100

describe('ended login and reset codes', () => {
  it('leave a day after they expired, however many there are, with the clock frozen between moves', async () => {
    const { call } = await setup({ rateLimit: 'off' })
    const control = (path: string, body?: unknown) =>
      call('POST', `/_sandbox${path}`, { creds: null, body })
    expect((await control('/clock/freeze')).status).toBe(200)
    const user = newUser()
    const registered = await call('POST', '/api/v1/partner/auth/register', {
      creds: acme,
      body: user,
    })
    expect(registered.status, registered.text).toBe(201)
    const userId = registered.json.userId as string
    const credentials = { email: user.email, password: user.password }
    for (let i = 0; i < LOGINS; i++) {
      const login = await call('POST', '/api/v1/partner/auth/login', {
        creds: acme,
        body: credentials,
      })
      expect(login.status).toBe(200)
      // The default scenario's code is 000000; every other login burns its code instead.
      const tries = i % 100 === 0 ? ['111111', '222222', '333333', '444444', '555555'] : ['000000']
      for (const code of tries) {
        await call('POST', '/api/v1/partner/auth/verify-otp', {
          creds: acme,
          body: { email: user.email, code },
        })
      }
    }
    const reset = await call('POST', '/api/v1/partner/auth/forgot-password/request', {
      creds: acme,
      body: { email: user.email },
    })
    expect(reset.status, reset.text).toBe(200)
    // The user's login and reset codes, as the sandbox's snapshot holds them.
    const codes = async () =>
      (await storedRows(call, 'verification_codes')).filter((c) => c.user_id === userId).length
    expect(await codes()).toBe(LOGINS + 1)

    // Two hours on: every login code has expired, and stays its day (the rule).
    expect((await control('/clock/advance', { by: '2h' })).status).toBe(200)
    expect(await codes()).toBe(LOGINS + 1)

    // Past the day (and the hour it is removed within) after the last expiry: the advance
    // removes one batch before it answers; with the clock still frozen, the rest drain on
    // their own.
    const advance = ENDED_RETENTION_MS + 20 * 60_000
    expect((await control('/clock/advance', { by: `${advance}ms` })).status).toBe(200)
    expect(await codes()).toBeLessThanOrEqual(LOGINS + 1 - BATCH)
    await expect.poll(codes, { timeout: 30_000, interval: 100 }).toBe(0)

    // The user logs in as before, and the new code is the one row.
    const fresh = await call('POST', '/api/v1/partner/auth/login', {
      creds: acme,
      body: credentials,
    })
    expect(fresh.status).toBe(200)
    expect(await codes()).toBe(1)
    const verify = await call('POST', '/api/v1/partner/auth/verify-otp', {
      creds: acme,
      body: { email: user.email, code: '000000' },
    })
    expect(verify.status, verify.text).toBe(200)
  }, 120_000)
})
