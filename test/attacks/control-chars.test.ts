import { describe, expect, it } from 'vitest'
import {
  bearer,
  FIXTURE_PASSWORD,
  inboxOf,
  newUser,
  onboardingApplicant,
  registerAndLogin,
  setup,
  snapshotOf,
} from '../helpers.js'

/**
 * NUL, the other C0 controls and DEL in a person's text: they were stored inside names, and a
 * password with trailing NULs logged in as the password without them. Every text input refuses
 * them with a 400 naming the field, and the refused request changes nothing.
 */

const API = '/api/v1/partner'
const CONTROLS = ['\u0000', '\u0001', '\u0009', '\u000a', '\u001b', '\u001f', '\u007f']
const FIXTURE_EMAIL = 'jaeden_grant51@example.com'

type Body = Record<string, unknown>
interface Case {
  name: string
  method: string
  path: string
  /** The valid body with `bad` put into the field under test. */
  body: (bad: string) => Body
  field: string
  creds?: null
  /** Descriptions keep tab and line breaks: only the other controls are refused. */
  multiLine?: boolean
}

async function loggedIn() {
  const { sandbox, call } = await setup({ rateLimit: 'off' })
  const u = await registerAndLogin(call)
  const auth = (extra: Body) => ({ headers: u.bearer, ...extra })
  return { sandbox, call, u, auth }
}

const cases = (email: string, phone: string): Case[] => [
  ...(['first_name', 'last_name', 'password'] as const).map((field) => ({
    name: `register ${field}`,
    method: 'POST',
    path: `${API}/auth/register`,
    body: (bad: string) => {
      const user = newUser()
      // Inside a name (trimming takes whitespace off its ends); at a password's end.
      return { ...user, [field]: field === 'password' ? `Initial-Passw0rd!${bad}` : `Ro${bad}bin` }
    },
    field,
  })),
  {
    name: 'login password with a trailing control',
    method: 'POST',
    path: `${API}/auth/login`,
    body: (bad) => ({ email: FIXTURE_EMAIL, password: `${FIXTURE_PASSWORD}${bad}${bad}` }),
    field: 'password',
  },
  ...(['current_password', 'new_password'] as const).map((field) => ({
    name: `change-password ${field}`,
    method: 'POST',
    path: `${API}/auth/change-password`,
    body: (bad: string) => ({
      current_password: 'Initial-Passw0rd!',
      new_password: 'Another-Passw0rd!',
      [field]: `${field === 'new_password' ? 'Another' : 'Initial'}-Passw0rd!${bad}`,
    }),
    field,
  })),
  ...(['first_name', 'last_name'] as const).map((field) => ({
    name: `PATCH users/me ${field}`,
    method: 'PATCH',
    path: `${API}/users/me`,
    body: (bad: string) => ({ [field]: `Ro${bad}bin` }),
    field,
  })),
  ...(['line1', 'line2', 'city', 'state', 'zip'] as const).map((part) => ({
    name: `PATCH users/me address.${part}`,
    method: 'PATCH',
    path: `${API}/users/me`,
    body: (bad: string) => ({ address: { [part]: `1${bad}2` } }),
    field: `address.${part}`,
  })),
  ...(['first_name', 'last_name', 'address_line1', 'address_line2', 'address_city'] as const).map(
    (field) => ({
      name: `onboarding ${field}`,
      method: 'POST',
      path: `${API}/cards/onboarding`,
      body: (bad: string) =>
        onboardingApplicant({ email, phone_number: phone }, { [field]: `Spring${bad}field` }),
      field,
    }),
  ),
  ...(['display_name', 'contact_name'] as const).map((field) => ({
    name: `PATCH partner/me ${field}`,
    method: 'PATCH',
    path: `${API}/me`,
    body: (bad: string) => ({ [field]: `Ac${bad}me` }),
    field,
  })),
  {
    name: 'control plane partner name',
    method: 'POST',
    path: '/_sandbox/partners',
    body: (bad) => ({ name: `Evil${bad}Corp` }),
    field: 'name',
    creds: null,
  },
  {
    name: 'webhook url',
    method: 'POST',
    path: `${API}/webhooks`,
    body: (bad) => ({ url: `https://example.test/ho${bad}oks`, events: [] }),
    field: 'url',
  },
  {
    name: 'partner webhook_url',
    method: 'PATCH',
    path: `${API}/me`,
    body: (bad) => ({ webhook_url: `https://example.test/ho${bad}oks` }),
    field: 'webhook_url',
  },
  {
    name: 'partner allowed_origins',
    method: 'PATCH',
    path: `${API}/me`,
    body: (bad) => ({ allowed_origins: [`https://exa${bad}mple.test`] }),
    field: 'allowed_origins.0',
  },
  {
    name: 'onboarding redirect_uri',
    method: 'POST',
    path: `${API}/cards/onboarding`,
    body: (bad) => ({
      ...onboardingApplicant({ email, phone_number: phone }),
      redirect_uri: `myapp://done${bad}x`,
    }),
    field: 'redirect_uri',
  },
  {
    name: 'webhook description',
    method: 'POST',
    path: `${API}/webhooks`,
    body: (bad) => ({ url: 'https://example.test/hooks', events: [], description: `a${bad}b` }),
    field: 'description',
    multiLine: true,
  },
]

describe('control characters in a person’s text', () => {
  it('are refused with a 400 naming the field, and change nothing', async () => {
    const { call, u, auth } = await loggedIn()
    for (const c of cases(u.user.email, u.user.phone_number)) {
      for (const bad of CONTROLS) {
        const allowed = c.multiLine && /[\t\n]/.test(bad)
        if (allowed) continue
        const label = `${c.name} with U+${bad.charCodeAt(0).toString(16).padStart(4, '0')}`
        const before = await snapshotOf(call)
        const inboxBefore = await inboxOf(call)
        const res = await call(c.method, c.path, { ...auth({ body: c.body(bad) }), creds: c.creds })
        expect(res.status, `${label}: ${res.text}`).toBe(400)
        expect(res.json.error.code, label).toBe('validation_error')
        const messages = res.json.error.details
          .filter((d: { field: string }) => d.field === c.field)
          .map((d: { message: string }) => d.message)
        expect(messages.join('; '), label).toMatch(/control characters/)
        expect(await snapshotOf(call), label).toBe(before)
        expect(await inboxOf(call), label).toBe(inboxBefore)
      }
    }
  })

  it('a password padded with NULs does not log in as the password', async () => {
    const { call } = await setup()
    const res = await call('POST', `${API}/auth/login`, {
      body: { email: FIXTURE_EMAIL, password: `${FIXTURE_PASSWORD}\u0000\u0000` },
    })
    expect(res.status).toBe(400)
    expect(res.json.error.details).toEqual([
      expect.objectContaining({ field: 'password', location: 'body' }),
    ])
    const inbox = await call('GET', `/_sandbox/inbox?email=${FIXTURE_EMAIL}`, { creds: null })
    expect(inbox.json.data).toEqual([])
  })

  it('tab and line breaks stay allowed in free text such as a webhook description', async () => {
    const { call } = await setup()
    const res = await call('POST', `${API}/webhooks`, {
      body: { url: 'https://example.test/hooks', events: [], description: 'line one\n\tline two' },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.json.webhook.description).toBe('line one\n\tline two')
  })

  it('a name without controls is stored as sent', async () => {
    const { call } = await setup()
    const u = await registerAndLogin(call, { first_name: 'Zoë', last_name: "O'Brien-Łukasz" })
    const me = await call('GET', `${API}/users/me`, { headers: bearer(u.token) })
    expect(me.json).toMatchObject({ first_name: 'Zoë', last_name: "O'Brien-Łukasz" })
  })
})
