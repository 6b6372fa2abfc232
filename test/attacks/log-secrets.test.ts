import { describe, expect, it } from 'vitest'
import {
  bearer,
  type Call,
  type Creds,
  connectBank,
  createPartner,
  hostedOnboarding,
  newUser,
  onboardingApplicant,
  setup,
  startReceiver,
} from '../helpers.js'

/**
 * A whole flow at `debug`, the level that logs request and response bodies, with every log
 * line captured: no code, token, secret or password issued or sent during the flow may appear
 * in any line, in its message text or its fields. (At debug, login and reset codes reached the
 * log inside the text of the inbox message that carries them.)
 */

const API = '/api/v1/partner'

async function inboxCode(call: Call, email: string, kind: string) {
  const inbox = await call(
    'GET',
    `/_sandbox/inbox?kind=${kind}&email=${encodeURIComponent(email)}`,
    { creds: null },
  )
  const message = inbox.json.data[0]
  expect(message.body, 'the message text carries its code').toContain(message.code)
  return message.code as string
}

/** Runs the flow; answers every secret it saw, by what it is. */
async function wholeFlow(call: Call): Promise<Record<string, string>> {
  const secrets: Record<string, string> = {}
  const receiver = await startReceiver()
  try {
    const partner = await createPartner(call, {
      name: 'Log Scan',
      scenario: 'random-otp',
      webhook_url: receiver.url,
    })
    secrets.api_secret = partner.creds.secret
    if (partner.webhookSecret) secrets.partner_webhook_secret = partner.webhookSecret
    let creds: Creds = partner.creds

    const user = newUser({ password: 'Logscan-Passw0rd!', ssn: '321-54-9876' })
    secrets.password = user.password
    secrets.ssn = '321549876'
    expect((await call('POST', `${API}/auth/register`, { creds, body: user })).status).toBe(201)

    const login = async (password: string, label: string) => {
      const res = await call('POST', `${API}/auth/login`, {
        creds,
        body: { email: user.email, password },
      })
      expect(res.status, res.text).toBe(200)
      const code = await inboxCode(call, user.email, 'login_code')
      secrets[`${label}_code`] = code
      const verified = await call('POST', `${API}/auth/verify-otp`, {
        creds,
        body: { email: user.email, code },
      })
      expect(verified.status, verified.text).toBe(200)
      secrets[`${label}_session`] = verified.json.sessionToken
      return verified.json.sessionToken as string
    }
    await login(user.password, 'login')

    // Password reset: a code in the inbox, then a reset token, then a new password.
    const reset = { creds, body: { email: user.email } }
    expect((await call('POST', `${API}/auth/forgot-password/request`, reset)).status).toBe(200)
    const resetCode = await inboxCode(call, user.email, 'password_reset_code')
    secrets.reset_code = resetCode
    const verified = await call('POST', `${API}/auth/forgot-password/verify`, {
      creds,
      body: { email: user.email, code: resetCode },
    })
    expect(verified.status, verified.text).toBe(200)
    secrets.reset_token = verified.json.reset_token
    secrets.new_password = 'Rotated-Passw0rd!'
    const resetDone = await call('POST', `${API}/auth/forgot-password/reset`, {
      creds,
      body: {
        email: user.email,
        reset_token: verified.json.reset_token,
        new_password: secrets.new_password,
      },
    })
    expect(resetDone.status, resetDone.text).toBe(200)
    const token = await login(secrets.new_password, 'relogin')

    // Onboarding through the hosted flow, with its access token; then a bank connection.
    const start = await call('POST', `${API}/cards/onboarding`, {
      creds,
      headers: bearer(token),
      body: onboardingApplicant(user),
    })
    expect(start.status, start.text).toBe(200)
    secrets.onboarding_access_token = start.json.data.accessToken
    await hostedOnboarding(call, bearer(token), onboardingApplicant(user), creds)
    const connect = await call('POST', '/api/v1/external-bank-account-connect/token', {
      creds,
      headers: bearer(token),
    })
    secrets.connect_token = connect.json.data.connect_token
    await connectBank(call, bearer(token), creds)

    // Webhook secrets: at creation and at rotation.
    const hook = await call('POST', `${API}/webhooks`, {
      creds,
      body: { url: receiver.url, events: [] },
    })
    expect(hook.status, hook.text).toBe(201)
    secrets.webhook_secret = hook.json.secret
    const rotated = await call('POST', `${API}/webhooks/${hook.json.webhook.id}/rotate-secret`, {
      creds,
    })
    expect(rotated.status, rotated.text).toBe(200)
    secrets.rotated_webhook_secret = rotated.json.secret

    // The partner's own key rotation: the new secret is shown once.
    const keys = await call('POST', `${API}/me/rotate-api-key`, { creds })
    expect(keys.status, keys.text).toBe(200)
    secrets.rotated_api_secret = keys.json.api_secret
    creds = { key: keys.json.api_key, secret: keys.json.api_secret }
    expect((await call('GET', `${API}/me`, { creds })).status).toBe(200)
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
  } finally {
    await receiver.close()
  }
  for (const [what, value] of Object.entries(secrets))
    expect(typeof value === 'string' && value.length >= 6, what).toBe(true)
  return secrets
}

describe('the log at debug, through a whole flow', () => {
  for (const logFormat of ['json', 'pretty'] as const) {
    it(`holds no code, token, secret or password (${logFormat})`, async () => {
      const lines: string[] = []
      const { call } = await setup({
        logLevel: 'debug',
        logFormat,
        onLog: (line: string) => lines.push(line),
      })
      const secrets = await wholeFlow(call)
      // The log did record the flow, bodies included.
      expect(lines.some((l) => l.includes('/auth/verify-otp'))).toBe(true)
      expect(lines.some((l) => l.includes('Your login code is'))).toBe(true)
      const leaks = Object.entries(secrets).flatMap(([what, value]) =>
        lines.filter((l) => l.includes(value)).map((l) => `${what} ${value}: ${l.slice(0, 400)}`),
      )
      expect(leaks).toEqual([])
    })
  }
})
