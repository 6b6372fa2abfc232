import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import {
  type Creds,
  createPartner,
  orgHeaders,
  registerAndLogin,
  setup,
  snapshotOf,
} from '../helpers.js'

/**
 * The credential and session attack table: every row is an attempt a hostile or careless
 * client makes; each must be refused with the right status in our envelope, and change
 * nothing (the store is compared before and after the whole table).
 */

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

interface Attack {
  name: string
  path?: string
  method?: string
  headers: Record<string, string>
  status: 401 | 403
  message?: RegExp
}

async function attackers() {
  const { sandbox, call } = await setup({ seed: 11 })
  const a = await createPartner(call, { name: 'attack-a' })
  const b = await createPartner(call, { name: 'attack-b' })
  const suspended = await createPartner(call, { name: 'attack-suspended' })
  const revoked = await createPartner(call, { name: 'attack-revoked' })
  const rotated = await createPartner(call, { name: 'attack-rotated' })
  const userA = await registerAndLogin(call, {}, a.creds)
  const userB = await registerAndLogin(call, {}, b.creds)
  const expired = await registerAndLogin(call, {}, a.creds)
  const loggedOut = await registerAndLogin(call, {}, a.creds)
  await call('POST', '/api/v1/partner/auth/logout', { creds: a.creds, headers: loggedOut.bearer })
  await call('POST', `/_sandbox/users/${expired.userId}/sessions/expire`, { creds: null })
  const newKeys = await call('POST', '/api/v1/partner/me/rotate-api-key', { creds: rotated.creds })
  expect(newKeys.status).toBe(200)
  for (const [p, status] of [
    [suspended, 'suspended'],
    [revoked, 'revoked'],
  ] as const) {
    await call('PATCH', `/_sandbox/partners/${p.id}`, { creds: null, body: { status } })
  }
  return { sandbox, call, a, b, suspended, revoked, rotated, userA, userB, expired, loggedOut }
}

const org = (creds: Creds) => orgHeaders(creds)

describe('credential and session attacks', () => {
  it('are refused with 401/403 in the envelope, and change nothing', async () => {
    const s = await attackers()
    const token = s.userA.token
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const userBClaims = JSON.parse(
      Buffer.from(s.userB.token.split('.')[1] as string, 'base64url').toString(),
    )
    const forged = (c: Record<string, unknown>, alg = 'HS256') =>
      new SignJWT(c).setProtectedHeader({ alg }).sign(new Uint8Array(32).fill(9))
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` })
    const USERS_ME = '/api/v1/partner/users/me'
    const attacks: Attack[] = [
      // Organization credentials.
      { name: 'no headers', headers: {}, status: 401, message: /Missing X-Partner-Key and/ },
      { name: 'key only', headers: { 'x-partner-key': s.a.creds.key }, status: 401 },
      { name: 'secret only', headers: { 'x-partner-secret': s.a.creds.secret }, status: 401 },
      {
        name: 'wrong secret',
        headers: org({ key: s.a.creds.key, secret: 'sk_test_wrong_secret_value' }),
        status: 401,
      },
      {
        name: "another partner's secret",
        headers: org({ key: s.a.creds.key, secret: s.b.creds.secret }),
        status: 401,
      },
      {
        name: 'unknown key',
        headers: org({ key: 'pk_test_nobody_has_this_key', secret: s.a.creds.secret }),
        status: 401,
      },
      {
        name: 'live key',
        headers: org({ key: 'pk_live_abc', secret: s.a.creds.secret }),
        status: 401,
        message: /Live-mode/,
      },
      {
        name: 'live secret',
        headers: org({ key: s.a.creds.key, secret: 'sk_live_abc' }),
        status: 401,
        message: /Live-mode/,
      },
      {
        name: 'key without the test prefix',
        headers: org({ key: s.a.creds.key.replace('pk_test_', ''), secret: s.a.creds.secret }),
        status: 401,
      },
      {
        name: 'secret with one character more',
        headers: org({ key: s.a.creds.key, secret: `${s.a.creds.secret}x` }),
        status: 401,
      },
      { name: 'rotated-out key and secret', headers: org(s.rotated.creds), status: 401 },
      { name: 'suspended partner', headers: org(s.suspended.creds), status: 403 },
      { name: 'revoked partner', headers: org(s.revoked.creds), status: 403 },
      // Sessions (organization credentials are right; the user token is the attack).
      { name: 'no session', path: USERS_ME, headers: org(s.a.creds), status: 401 },
      {
        name: 'Basic instead of Bearer',
        path: USERS_ME,
        headers: { ...org(s.a.creds), authorization: `Basic ${token}` },
        status: 401,
      },
      {
        name: 'not a JWT',
        path: USERS_ME,
        headers: { ...org(s.a.creds), ...bearer('abc.def') },
        status: 401,
      },
      {
        name: 'tampered payload (other sub)',
        path: USERS_ME,
        headers: {
          ...org(s.a.creds),
          ...bearer(`${header}.${b64({ ...claims, sub: userBClaims.sub })}.${signature}`),
        },
        status: 401,
      },
      {
        name: 'tampered payload (later exp)',
        path: USERS_ME,
        headers: {
          ...org(s.a.creds),
          ...bearer(`${header}.${b64({ ...claims, exp: claims.exp + 86_400 })}.${signature}`),
        },
        status: 401,
      },
      {
        name: 'tampered signature',
        path: USERS_ME,
        headers: { ...org(s.a.creds), ...bearer(`${header}.${payload}.${signature.slice(2)}AA`) },
        status: 401,
      },
      {
        name: 'alg none',
        path: USERS_ME,
        headers: {
          ...org(s.a.creds),
          ...bearer(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`),
        },
        status: 401,
      },
      {
        name: 'alg HS512 with a guessed key',
        path: USERS_ME,
        headers: { ...org(s.a.creds), ...bearer(await forged(claims, 'HS512')) },
        status: 401,
      },
      {
        name: 'signed with another key',
        path: USERS_ME,
        headers: { ...org(s.a.creds), ...bearer(await forged(claims)) },
        status: 401,
      },
      {
        name: "another partner's user token",
        path: USERS_ME,
        headers: { ...org(s.a.creds), ...s.userB.bearer },
        status: 401,
      },
      {
        name: 'right token, other partner credentials',
        path: USERS_ME,
        headers: { ...org(s.b.creds), ...s.userA.bearer },
        status: 401,
      },
      {
        name: 'expired session',
        path: USERS_ME,
        headers: { ...org(s.a.creds), ...s.expired.bearer },
        status: 401,
      },
      {
        name: 'logged-out session',
        path: USERS_ME,
        headers: { ...org(s.a.creds), ...s.loggedOut.bearer },
        status: 401,
      },
      {
        name: 'token of a suspended partner',
        path: USERS_ME,
        headers: { ...org(s.suspended.creds), ...s.userA.bearer },
        status: 403,
      },
    ]
    const before = await snapshotOf(s.call)
    for (const attack of attacks) {
      for (const [method, path] of [
        [attack.method ?? 'GET', attack.path ?? '/api/v1/partner/me'],
        ['PATCH', attack.path ?? '/api/v1/partner/me'],
      ] as const) {
        const res = await s.call(method, path, {
          creds: null,
          headers: { 'content-type': 'application/json', ...attack.headers },
          raw: method === 'PATCH' ? '{"first_name":"Mallory","display_name":"Mallory"}' : undefined,
        })
        const label = `${attack.name}: ${method} ${path}`
        expect(res.status, label).toBe(attack.status)
        expect(res.json, label).toMatchObject({
          success: false,
          error: { code: attack.status === 401 ? 'unauthorized' : 'forbidden' },
          requestId: expect.stringMatching(/^req_/),
        })
        if (attack.message) expect(res.json.error.message, label).toMatch(attack.message)
        // Never echo a credential or a token back.
        for (const secret of [s.a.creds.secret, token, s.userB.token]) {
          expect(res.text, label).not.toContain(secret)
        }
      }
    }
    expect(await snapshotOf(s.call)).toBe(before)
    // The real credentials and token still work: no attack disturbed them.
    const ok = await s.call('GET', USERS_ME, { creds: s.a.creds, headers: s.userA.bearer })
    expect(ok.status).toBe(200)
  })
})
