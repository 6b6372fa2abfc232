import { describe, expect, it } from 'vitest'
import { ControlPlaneError, type SandboxPartnerHandle } from '../src/index.js'
import { httpCall, onboardedUser, sharedControlClient } from './helpers.js'

/** Rules and verification through the typed control client, over a real socket. */
const TOKEN = 'rules-token'
const admin = { authorization: `Bearer ${TOKEN}` }
const REGISTER = '/api/v1/partner/auth/register'
const FUND = '/api/v1/partner/cards/simulate-fund'
const PURCHASE = '/api/v1/partner/cards/simulate-purchase'
const shared = sharedControlClient(TOKEN)

let users = 0
const register = async (partner: SandboxPartnerHandle, extra: Record<string, string> = {}) => {
  users++
  const res = await fetch(`${partner.apiBase}/partner/auth/register?source=client-test`, {
    method: 'POST',
    headers: { ...partner.headers, 'content-type': 'application/json', 'X-App': 'signup' },
    body: JSON.stringify({
      email: `client${users}@example.test`,
      password: 'Client-Passw0rd!',
      phone_number: '+14155550123',
      first_name: 'Cleo',
      last_name: 'Client',
      ssn: '123-45-6789',
      date_of_birth: '1990-01-01',
      ...extra,
    }),
  })
  // biome-ignore lint/suspicious/noExplicitAny: the test reads response fields freely
  return { status: res.status, json: (await res.json()) as any }
}

const conflict = {
  success: false as const,
  error: { code: 'conflict' as const, message: 'This email is taken.' },
  requestId: 'req_stub',
}

describe('partner.rules', () => {
  it('create, list, answer (times), remove, and cleared by the reset', async () => {
    const partner = await shared.control.createPartner({ name: 'Overrides client' })
    const rule = await partner.rules.add({
      match: { method: 'POST', path: REGISTER, body: { first_name: 'Taken' } },
      respond: { status: 409, body: conflict },
      times: 1,
    })
    expect(rule.operation_id).toBe('registerUser')
    expect((await partner.rules.list()).map((o) => o.id)).toEqual([rule.id])
    const refused = await register(partner, { first_name: 'Taken' })
    expect(refused).toEqual({ status: 409, json: conflict })
    expect(await partner.rules.list()).toEqual([])
    expect((await register(partner, { first_name: 'Taken' })).status).toBe(201)

    const kept = await partner.rules.add({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 409, body: conflict },
    })
    expect((await register(partner)).status).toBe(409)
    await partner.rules.remove(kept.id)
    expect((await register(partner)).status).toBe(201)
    await partner.rules.add({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 409, body: conflict },
    })
    await partner.reset()
    expect(await partner.rules.list()).toEqual([])
    await partner.delete()
  })

  it('a body off the schema is refused with the schema naming the field; off_contract serves it', async () => {
    const partner = await shared.control.createPartner({ name: 'Contract client' })
    const refused = await partner.rules
      .add({
        match: { method: 'POST', path: REGISTER },
        respond: { status: 201, body: { userId: 'not-a-uuid', email: 'a@example.test' } },
      })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ControlPlaneError)
    const error = refused as ControlPlaneError
    expect(error.status).toBe(400)
    expect(error.details.map((d) => d.field)).toEqual(
      expect.arrayContaining(['respond.body.userId', 'respond.body.message']),
    )
    const served = await partner.rules.add({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 201, body: { userId: 'not-a-uuid' } },
      off_contract: true,
    })
    expect(served.contract_problem).toMatch(/respond\.body\.userId/)
    expect((await register(partner)).json).toEqual({ userId: 'not-a-uuid' })
    const [entry] = await partner.requests.find({ path: REGISTER })
    expect(entry?.rules).toEqual([
      { id: served.id, effect: 'respond', status: 201, off_contract: true },
    ])
    await partner.delete()
  })

  it('global rules through shared.control.rules answer every partner', async () => {
    const one = await shared.control.createPartner({ name: 'Global one' })
    const two = await shared.control.createPartner({ name: 'Global two' })
    const global = await shared.control.rules.add({
      match: { method: 'POST', path: REGISTER, headers: { 'x-app': 'signup' } },
      respond: { status: 409, body: conflict },
    })
    expect((await shared.control.rules.list()).map((o) => o.id)).toContain(global.id)
    expect((await register(one)).status).toBe(409)
    expect((await register(two)).status).toBe(409)
    await shared.control.rules.remove(global.id)
    expect((await register(two)).status).toBe(201)
    await one.delete()
    await two.delete()
  })
})

describe('a scenario decision as a rule', () => {
  it("declines this partner's next purchase for insufficient funds with one call, then approves again; the journal says which rule each request met", async () => {
    const partner = await shared.control.createPartner({ name: 'Decline once' })
    const http = httpCall(shared.sandbox.url)
    // The helpers read the inbox through the control plane, which wants the admin token.
    const call: typeof http = (method, path, opts = {}) =>
      http(method, path, {
        ...opts,
        headers: { ...opts.headers, ...(path.startsWith('/_sandbox') ? admin : {}) },
      })
    const creds = { key: partner.apiKey, secret: partner.apiSecret }
    const user = await onboardedUser(call, {}, creds)
    const as = (path: string, body: unknown) =>
      call('POST', path, { creds, headers: user.bearer, body })
    expect((await as(FUND, { amount: 100 })).status).toBe(200)

    // The one call: match, effect (a scenario decision) and count.
    const rule = await partner.rules.add({
      match: { method: 'POST', path: PURCHASE },
      decide: { purchase_decline: 'insufficient_funds' },
      once: true,
    })

    const first = await as(PURCHASE, { amount: 10, merchant: { name: 'Corner Shop' } })
    expect(first.status).toBe(201)
    expect(first.json.data).toMatchObject({
      status: 'declined',
      decline_reason: 'insufficient_funds',
    })
    const second = await as(PURCHASE, { amount: 10, merchant: { name: 'Corner Shop' } })
    expect(second.status).toBe(201)
    expect(second.json.data).toMatchObject({ status: 'pending', decline_reason: null })
    // The rule met its one request and is gone.
    expect(await partner.rules.list()).toEqual([])

    const [latest, earlier] = await partner.requests.find({ method: 'POST', path: PURCHASE })
    expect(latest?.rules).toEqual([])
    expect(earlier?.rules).toEqual([
      { id: rule.id, effect: 'decide', decide: { purchase_decline: 'insufficient_funds' } },
    ])
    // Another partner's purchases were never declined by it.
    await partner.delete()
  })
})

describe('requests.find by content, and requests.verify', () => {
  it('finds by query, headers and body; verify says matched, or why not', async () => {
    const partner = await shared.control.createPartner({ name: 'Verify client' })
    await register(partner, { first_name: 'Vera' })
    const found = await partner.requests.find({
      query: { source: 'client-test' },
      headers: { 'X-App': 'signup' },
      body: { first_name: 'Vera' },
    })
    expect(found.map((e) => e.path)).toEqual([REGISTER])
    expect(
      await shared.control.requests.count({ partner_id: partner.id, body: { first_name: 'Vera' } }),
    ).toBe(1)

    const yes = await partner.requests.verify(
      { method: 'POST', path: REGISTER, body: { first_name: 'Vera' } },
      { times: 1 },
    )
    expect(yes).toEqual({ matched: true, count: 1, near_misses: [] })
    const no = await shared.control.requests.verify({
      partner_id: partner.id,
      method: 'POST',
      path: REGISTER,
      body: { first_name: 'Vern' },
    })
    expect(no.matched).toBe(false)
    expect(no.near_misses[0]?.differences).toEqual(['body.first_name: expected "Vern", got "Vera"'])
    await partner.delete()
  })
})
