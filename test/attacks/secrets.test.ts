import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { acme, bearer, onboardingApplicant, setup, tempDirForTest } from '../helpers.js'

/**
 * A secrets scan: after a run that touches every kind of secret (password, SSN, login and
 * reset codes, reset token, session token, API secret, webhook secret, onboarding access
 * token, bank-connect token), none of them is in the logs, the data file, its journal or the
 * snapshot; and none comes back in any answer but the one that issues it (the inbox is the
 * control plane's view of the codes "sent").
 */

afterEach(() => {
  vi.restoreAllMocks()
})

it('no secret leaks into logs, data file, journal, snapshot or other answers', async () => {
  // Every log line, as formatted for stderr (caught through onLog: stderr itself is written
  // from a buffer off the event loop, log-destination.ts).
  const logs: string[] = []
  const dir = tempDirForTest('sandbox-secrets-')
  const { sandbox, call: rawCall } = await setup({
    data: join(dir, 'state.json'),
    logLevel: 'debug',
    seed: 99,
    onLog: (line) => logs.push(line),
  })
  const answers: { label: string; text: string }[] = []
  const call: typeof rawCall = async (method, path, opts) => {
    const res = await rawCall(method, path, opts)
    answers.push({ label: `${method} ${path}`, text: res.text })
    return res
  }

  const password = 'Zq9!Unique-Passw0rd'
  const newPassword = 'Rt7#Other-Passw0rd'
  const ssn = '219-09-9998'
  const email = 'secret.scan@example.com'
  const otp = (code: string) => ({ 'x-sandbox-scenario': JSON.stringify({ otp: { code } }) })
  const register = await call('POST', '/api/v1/partner/auth/register', {
    body: {
      email,
      phone_number: '+14155550999',
      first_name: 'Sec',
      last_name: 'Ret',
      password,
      ssn,
      date_of_birth: '1990-04-12',
    },
  })
  expect(register.status, register.text).toBe(201)
  await call('POST', '/api/v1/partner/auth/login', {
    body: { email, password },
    headers: otp('583920'),
  })
  const verified = await call('POST', '/api/v1/partner/auth/verify-otp', {
    body: { email, code: '583920' },
  })
  const session = verified.json.sessionToken as string
  const started = await call('POST', '/api/v1/partner/cards/onboarding', {
    headers: bearer(session),
    body: onboardingApplicant(
      { email, phone_number: '+14155550999', first_name: 'Sec', last_name: 'Ret' },
      { ssn: '219 09 9998' },
    ),
  })
  expect(started.status, started.text).toBe(200)
  const accessToken = started.json.data.accessToken as string
  const connect = await call('POST', '/api/v1/external-bank-account-connect/token', {
    headers: bearer(session),
  })
  const connectToken = connect.json.data.connect_token as string
  const hook = await call('POST', '/api/v1/partner/webhooks', {
    body: { url: 'http://127.0.0.1:9/hooks', events: [] },
  })
  const webhookSecret = hook.json.secret as string
  await call('POST', '/api/v1/partner/auth/forgot-password/request', {
    body: { email },
    headers: otp('716204'),
  })
  const resetVerify = await call('POST', '/api/v1/partner/auth/forgot-password/verify', {
    body: { email, code: '716204' },
  })
  const resetToken = resetVerify.json.reset_token as string
  const reset = await call('POST', '/api/v1/partner/auth/forgot-password/reset', {
    body: { email, reset_token: resetToken, new_password: newPassword },
  })
  expect(reset.status, reset.text).toBe(200)
  const rotated = await call('POST', '/api/v1/partner/me/rotate-api-key', {})
  const apiSecret = rotated.json.api_secret as string
  expect(apiSecret).toMatch(/^sk_test_/)
  // Read back everything a partner or the control plane can list.
  for (const path of [
    '/api/v1/partner/me',
    '/api/v1/partner/webhooks',
    `/api/v1/partner/webhooks/${hook.json.webhook.id}/deliveries`,
  ]) {
    await call('GET', path, { creds: { key: rotated.json.api_key, secret: apiSecret } })
  }
  for (const path of ['/_sandbox/partners', '/_sandbox/requests', '/_sandbox/events']) {
    await call('GET', path, { creds: null })
  }
  const snapshot = (await rawCall('GET', '/_sandbox/snapshot', { creds: null })).text
  await sandbox.close()

  const ssnForms = ['219-09-9998', '219090998', '219 09 9998', '219099998']
  const secrets: Record<string, { values: string[]; issuedBy: RegExp[] }> = {
    password: { values: [password, newPassword], issuedBy: [] },
    ssn: { values: ssnForms, issuedBy: [] },
    'login code': { values: ['583920'], issuedBy: [/^GET \/_sandbox\/inbox/] },
    'reset code': { values: ['716204'], issuedBy: [/^GET \/_sandbox\/inbox/] },
    'reset token': { values: [resetToken], issuedBy: [/forgot-password\/verify$/] },
    'session token': { values: [session], issuedBy: [/verify-otp$/] },
    'API secret': { values: [apiSecret, acme.secret], issuedBy: [/rotate-api-key$/] },
    'onboarding access token': { values: [accessToken], issuedBy: [/cards\/onboarding$/] },
    'connect token': { values: [connectToken], issuedBy: [/connect\/token$/] },
    'webhook secret': { values: [webhookSecret], issuedBy: [/POST \/api\/v1\/partner\/webhooks$/] },
  }
  const files = readdirSync(dir)
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => ({ name: f, text: readFileSync(join(dir, f), 'utf8') }))
  expect(files.map((f) => f.name)).toContain('state.json')
  const logText = logs.join('')
  expect(logText).toContain('verify-otp') // the debug log did run
  for (const [kind, { values, issuedBy }] of Object.entries(secrets)) {
    for (const value of values) {
      expect(value.length, kind).toBeGreaterThan(5)
      expect(logText, `${kind} in the logs`).not.toContain(value)
      // The webhook secret signs deliveries, so the data file must hold it; nothing else.
      if (kind !== 'webhook secret') {
        for (const f of files) expect(f.text, `${kind} in ${f.name}`).not.toContain(value)
        expect(snapshot, `${kind} in the snapshot`).not.toContain(value)
      }
      for (const a of answers) {
        if (issuedBy.some((re) => re.test(a.label))) continue
        expect(a.text, `${kind} in the answer to ${a.label}`).not.toContain(value)
      }
    }
  }
})
