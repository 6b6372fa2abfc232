import type { Creds, testSandbox } from './helpers.js'

type Call = Awaited<ReturnType<typeof testSandbox>>['call']

let counter = 0
export function newUser(overrides: Record<string, unknown> = {}) {
  counter++
  return {
    email: `user${counter}.${Date.now()}@example.com`,
    phone_number: '+14155550123',
    first_name: 'Jane',
    last_name: 'Doe',
    password: 'Sandbox-Passw0rd!',
    ssn: '123-45-6789',
    date_of_birth: '1990-04-12',
    ...overrides,
  }
}

/** Logs in (password → code from the inbox → session); returns the session body. */
export async function login(
  call: Call,
  email: string,
  password = 'Sandbox-Passw0rd!',
  creds?: Creds,
) {
  const sent = await call('POST', '/api/v1/partner/auth/login', {
    creds,
    body: { email, password },
  })
  if (sent.status !== 200) throw new Error(`login failed: ${sent.status} ${sent.text}`)
  const inbox = await call(
    'GET',
    `/_sandbox/inbox?email=${encodeURIComponent(email)}&kind=login_code`,
    { creds: null },
  )
  const code = inbox.json.data[0].code as string
  const verified = await call('POST', '/api/v1/partner/auth/verify-otp', {
    creds,
    body: { email, code },
  })
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.status} ${verified.text}`)
  return verified.json as { sessionToken: string; expiresAt: number; user: { id: string } }
}

export async function registerAndLogin(
  call: Call,
  overrides: Record<string, unknown> = {},
  creds?: Creds,
) {
  const user = newUser(overrides)
  const reg = await call('POST', '/api/v1/partner/auth/register', { creds, body: user })
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`)
  const session = await login(call, user.email, user.password, creds)
  return {
    ...session,
    email: user.email,
    password: user.password,
    bearer: { authorization: `Bearer ${session.sessionToken}` },
  }
}
