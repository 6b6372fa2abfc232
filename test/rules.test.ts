import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RULE_CAP } from '../src/domain/rules.js'
import {
  acme,
  connectBank,
  createPartner,
  hostedOnboarding,
  journalOf,
  newUser,
  northwind,
  onboardedUser,
  onboardingApplicant,
  registerAndLogin,
  setup,
  tempDirForTest,
  testEngine,
} from './helpers.js'
import { freshDatabaseUrl } from './postgres.js'
import { ruleRow } from './rule-row.js'

const REGISTER = '/api/v1/partner/auth/register'
const conflict = {
  success: false,
  error: { code: 'conflict', message: 'A user with this email already exists.' },
  requestId: 'req_rule',
}
const conflict409 = () => ({ status: 409, body: conflict })
const on409 = (extra: Record<string, unknown> = {}) => ({
  match: { method: 'POST', path: REGISTER },
  respond: { status: 409, body: conflict },
  ...extra,
})

async function sandboxWithRules() {
  const { sandbox, call } = await setup()
  const acmeId = (await call('GET', '/api/v1/partner/me')).json.partner.id as string
  const add = (body: unknown, partnerId: string | null = acmeId) =>
    call('POST', partnerId ? `/_sandbox/partners/${partnerId}/rules` : '/_sandbox/rules', {
      creds: null,
      body,
    })
  const register = (creds = acme, extra: Record<string, unknown> = {}) =>
    call('POST', REGISTER, { creds, body: { ...newUser(), ...extra } })
  return { sandbox, call, acmeId, add, register }
}

describe('rules that answer: POST /_sandbox/partners/{id}/rules', () => {
  it('answers a matching request with the chosen status and body, and the journal says which', async () => {
    const { add, register, call } = await sandboxWithRules()
    const created = await add(
      on409({ respond: { ...on409().respond, headers: { 'x-why': 'stub' } } }),
    )
    expect(created.status).toBe(201)
    expect(created.json.rule).toMatchObject({
      id: expect.stringMatching(/^rul_/),
      times: null,
      used: 0,
      priority: 0,
      contract_problem: null,
      operation_id: 'registerUser',
    })
    const res = await register()
    expect(res.status).toBe(409)
    expect(res.json).toEqual(conflict)
    expect(res.headers.get('x-why')).toBe('stub')
    // A rule's answer still carries the partner's rate limit (acme's fixtures say 1000).
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000')
    const [entry] = await journalOf(call, { path: REGISTER })
    expect(entry.status).toBe(409)
    expect(entry.rules).toEqual([
      { id: created.json.rule.id, effect: 'respond', status: 409, off_contract: false },
    ])
    // The journal still shows what was sent, though no route read it.
    expect(entry.request.body).toMatchObject({ first_name: 'Robin', password: '[redacted]' })
    // Other routes answer as usual.
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(200)
  })

  it('refuses a body that breaks the response schema, with the schema naming the field', async () => {
    const { add, register } = await sandboxWithRules()
    const res = await add({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 409, body: { success: false, error: { code: 'conflict' } } },
    })
    expect(res.status).toBe(400)
    expect(res.json.error.message).toMatch(/does not fit its schema/)
    expect(res.json.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'respond.body.error.message', message: 'is required' }),
        expect.objectContaining({ field: 'respond.body.requestId', message: 'is required' }),
      ]),
    )
    // Nothing was stored: the real route answers.
    expect((await register()).status).toBe(201)
  })

  it('refuses a status the operation does not document, and a path that is no operation', async () => {
    const { add } = await sandboxWithRules()
    const teapot = await add({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 418 },
    })
    expect(teapot.status).toBe(400)
    expect(teapot.json.error.details[0]).toMatchObject({ field: 'respond.status' })
    expect(teapot.json.error.message).toMatch(/does not answer 418 \(it documents 201, 400/)
    const nowhere = await add({
      match: { method: 'GET', path: '/api/v1/partner/nowhere' },
      respond: { status: 200, body: {} },
    })
    expect(nowhere.status).toBe(400)
    expect(nowhere.json.error.details[0]).toMatchObject({ field: 'match.path' })
    const control = await add({
      match: { method: 'GET', path: '/_sandbox/health' },
      respond: { status: 200 },
    })
    expect(control.status).toBe(400)
    expect(control.json.error.details[0].field).toBe('match.path')
    // A public route takes no credentials: a rule could never meet it.
    const publicRoute = await add({
      match: { method: 'GET', path: '/api/v1/external-bank-account-connect/connect' },
      respond: { status: 200 },
      off_contract: true,
    })
    expect(publicRoute.status).toBe(400)
    expect(publicRoute.json.error.message).toMatch(/public route/)
  })

  it('with off_contract: true serves what the contract refuses, and the journal marks it', async () => {
    const { add, register, call } = await sandboxWithRules()
    const created = await add({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 418, body: { teapot: true } },
      off_contract: true,
    })
    expect(created.status).toBe(201)
    expect(created.json.rule.contract_problem).toMatch(/does not answer 418/)
    const res = await register()
    expect(res.status).toBe(418)
    expect(res.json).toEqual({ teapot: true })
    const [entry] = await journalOf(call, { path: REGISTER })
    expect(entry.rules).toEqual([
      { id: created.json.rule.id, effect: 'respond', status: 418, off_contract: true },
    ])
  })

  it('matches templates, query, headers (any case) and a JSON subset of the body', async () => {
    const { add, call, register } = await sandboxWithRules()
    const users = await add({
      match: {
        method: 'GET',
        path: '/api/v1/partner/transactions/{id}',
        query: { expand: 'cards' },
        headers: { 'X-Trace': 'abc' },
      },
      respond: {
        status: 404,
        body: { ...conflict, error: { code: 'not_found', message: 'gone' } },
      },
    })
    expect(users.status).toBe(201)
    const path = '/api/v1/partner/transactions/txn_Pc4Hs8Wd2Mz6Qy1J'
    const hit = await call('GET', `${path}?expand=cards`, { headers: { 'x-trace': 'abc' } })
    expect(hit.status).toBe(404)
    expect(hit.json.error.message).toBe('gone')
    const noHeader = await call('GET', `${path}?expand=cards`)
    expect(noHeader.json?.error?.message).not.toBe('gone')
    const noQuery = await call('GET', path, { headers: { 'x-trace': 'abc' } })
    expect(noQuery.json?.error?.message).not.toBe('gone')

    await add(on409({ match: { method: 'POST', path: REGISTER, body: { first_name: 'Taken' } } }))
    expect((await register(acme, { first_name: 'Taken' })).status).toBe(409)
    // The route still reads the body the rule looked at.
    expect((await register(acme, { first_name: 'Free' })).status).toBe(201)
  })

  it('times: N answers N requests, then the rule is gone', async () => {
    const { add, register, call, acmeId } = await sandboxWithRules()
    await add(on409({ times: 2 }))
    expect((await register()).status).toBe(409)
    const listed = await call('GET', `/_sandbox/partners/${acmeId}/rules`, { creds: null })
    expect(listed.json.data[0]).toMatchObject({ times: 2, used: 1 })
    expect((await register()).status).toBe(409)
    expect((await register()).status).toBe(201)
    const after = await call('GET', `/_sandbox/partners/${acmeId}/rules`, { creds: null })
    expect(after.json.data).toEqual([])
  })

  it('times: 1 answers one of two requests sent at once, never both', async () => {
    const { add, register } = await sandboxWithRules()
    // A body criterion: each request reads its body before the choice, so both are in flight.
    const match = { method: 'POST', path: REGISTER, body: { first_name: 'Robin' } }
    await add(on409({ match, times: 1, latency_ms: 20 }))
    const statuses = (await Promise.all([register(), register()])).map((r) => r.status).sort()
    expect(statuses).toEqual([201, 409])
  })

  it('priority: higher first; among equals, the newest first', async () => {
    const { add, register, call, acmeId } = await sandboxWithRules()
    const body = (message: string) => ({ ...conflict, error: { code: 'conflict', message } })
    const low = await add(on409({ respond: { status: 409, body: body('low') }, priority: -1 }))
    await add(on409({ respond: { status: 409, body: body('older') } }))
    await add(on409({ respond: { status: 409, body: body('newer') } }))
    expect((await register()).json.error.message).toBe('newer')
    const high = await add(on409({ respond: { status: 409, body: body('high') }, priority: 5 }))
    expect((await register()).json.error.message).toBe('high')
    const listed = await call('GET', `/_sandbox/partners/${acmeId}/rules`, { creds: null })
    expect(
      listed.json.data.map(
        (o: { respond: { body: typeof conflict } }) => o.respond.body.error.message,
      ),
    ).toEqual(['high', 'newer', 'older', 'low'])
    expect(listed.json.data[0].id).toBe(high.json.rule.id)
    expect(listed.json.data[3].id).toBe(low.json.rule.id)
  })

  it('DELETE removes one; the partner reset removes them all', async () => {
    const { add, register, call, acmeId } = await sandboxWithRules()
    const first = await add(on409())
    const removed = await call(
      'DELETE',
      `/_sandbox/partners/${acmeId}/rules/${first.json.rule.id}`,
      { creds: null },
    )
    expect(removed.status).toBe(200)
    expect((await register()).status).toBe(201)
    const again = await call('DELETE', `/_sandbox/partners/${acmeId}/rules/${first.json.rule.id}`, {
      creds: null,
    })
    expect(again.status).toBe(404)
    await add(on409())
    expect((await call('POST', `/_sandbox/partners/${acmeId}/reset`, { creds: null })).status).toBe(
      200,
    )
    expect((await register()).status).toBe(201)
  })

  it("a partner's rule never meets another partner's requests; a global one meets every partner's", async () => {
    const { add, register, call } = await sandboxWithRules()
    await add(on409())
    const other = await createPartner(call, { name: 'Other' })
    expect((await register(northwind)).status).toBe(201)
    expect((await register(other.creds)).status).toBe(201)
    expect((await register(acme)).status).toBe(409)

    const global = await add(
      on409({ respond: { status: 409, body: { ...conflict, requestId: 'global' } } }),
      null,
    )
    expect(global.status).toBe(201)
    expect(global.json.rule.partner_id).toBeNull()
    expect((await register(northwind)).json.requestId).toBe('global')
    // Never an unauthenticated request: that one is the API's 401.
    const anonymous = await call('POST', REGISTER, { creds: null, body: newUser() })
    expect(anonymous.status).toBe(401)
    const listed = await call('GET', '/_sandbox/rules', { creds: null })
    expect(listed.json.data.map((o: { id: string }) => o.id)).toEqual([global.json.rule.id])
    // A global rule is not a partner's to remove.
    const wrong = await call(
      'DELETE',
      `/_sandbox/partners/${other.id}/rules/${global.json.rule.id}`,
      { creds: null },
    )
    expect(wrong.status).toBe(404)
    expect((await call('POST', '/_sandbox/reset', { creds: null })).status).toBe(200)
    expect((await call('GET', '/_sandbox/rules', { creds: null })).json.data).toEqual([])
  })

  it("is part of the partner's snapshot and comes back with its restore", async () => {
    const { add, register, call, acmeId } = await sandboxWithRules()
    const created = await add(on409())
    const snapshot = await call('GET', `/_sandbox/partners/${acmeId}/snapshot`, { creds: null })
    expect(Object.keys(snapshot.json.collections.rules)).toEqual([created.json.rule.id])
    await call('POST', `/_sandbox/partners/${acmeId}/reset`, { creds: null })
    expect((await register()).status).toBe(201)
    const restored = await call('POST', `/_sandbox/partners/${acmeId}/snapshot`, {
      creds: null,
      body: snapshot.json,
    })
    expect(restored.status).toBe(200)
    expect((await register()).status).toBe(409)
    // And in the whole-sandbox snapshot, global ones included.
    await add(on409(), null)
    const whole = await call('GET', '/_sandbox/snapshot', { creds: null })
    expect(Object.keys(whole.json.collections.rules)).toHaveLength(2)
  })

  it('meets the partner a key names now: a restore that gave the key to another partner moves its rules', async () => {
    const { add, register, call } = await sandboxWithRules()
    await add(on409())
    // Acme's requests met its rule before: the sandbox has seen which partner its key named.
    expect((await register(acme)).status).toBe(409)
    expect((await register(northwind)).status).toBe(201)
    // A snapshot (of another sandbox, say) in which the two partners hold each other's keys.
    const whole = await call('GET', '/_sandbox/snapshot?include_secrets=true', { creds: null })
    const partners = Object.values(whole.json.collections.partners) as Record<string, unknown>[]
    const [a, n] = [acme, northwind].map((creds) => partners.find((p) => p.api_key === creds.key))
    if (!a || !n) throw new Error('both partners are in the snapshot')
    for (const field of ['api_key', 'api_secret_hash']) [a[field], n[field]] = [n[field], a[field]]
    const restored = await call('POST', '/_sandbox/snapshot', { creds: null, body: whole.json })
    expect(restored.status, restored.text).toBe(200)
    // Acme's key is Northwind's now, and Northwind has no rule; its old key is Acme's.
    expect((await register(acme)).status).toBe(201)
    expect((await register(northwind)).status).toBe(409)
    expect((await register(acme)).status).toBe(201)
  })

  it('survives a restart with a data file (or on its database), times left included', async () => {
    const dir = tempDirForTest('partner-sandbox-rules-')
    // The state a restarted sandbox finds again: its data file, or on PostgreSQL its database.
    const kept =
      testEngine === 'postgres'
        ? { database: freshDatabaseUrl() }
        : { data: join(dir, 'sandbox.json') }
    const first = await setup(kept)
    const id = (await first.call('GET', '/api/v1/partner/me')).json.partner.id
    const path = `/_sandbox/partners/${id}/rules`
    await first.call('POST', path, { creds: null, body: on409({ times: 2 }) })
    expect((await first.call('POST', REGISTER, { body: newUser() })).status).toBe(409)
    await first.sandbox.close()
    const second = await setup(kept)
    const [rule] = (await second.call('GET', path, { creds: null })).json.data
    expect(rule).toMatchObject({ times: 2, used: 1 })
    expect((await second.call('POST', REGISTER, { body: newUser() })).status).toBe(409)
    expect((await second.call('POST', REGISTER, { body: newUser() })).status).toBe(201)
  })

  it(`holds at most ${RULE_CAP} per partner, then says so with 409`, async () => {
    const { sandbox, add, acmeId } = await sandboxWithRules()
    await sandbox.services.state.transaction(async (tx) => {
      for (let i = 0; i < RULE_CAP; i++) {
        tx.put('rules', { ...ruleRow(`rul_filler${i}`, acmeId, null), seq: i })
      }
    })
    const res = await add(on409())
    expect(res.status).toBe(409)
    expect(res.json.error.message).toMatch(`already has ${RULE_CAP} rules`)
  })

  it('names the bad field of a malformed rule', async () => {
    const { add } = await sandboxWithRules()
    const res = await add({ match: { method: 'POST' }, respond: { status: 409 } })
    expect(res.status).toBe(400)
    expect(res.json.error.details[0]).toMatchObject({ field: 'match.path' })
    // WireMock's url carries the query; here it goes in match.query, and the refusal says so.
    const withQuery = await add(
      on409({ match: { method: 'POST', path: '/api/v1/partner/auth/register?invite=1' } }),
    )
    expect(withQuery.status).toBe(400)
    expect(withQuery.json.error.details[0]).toMatchObject({ field: 'match.path' })
    expect(withQuery.json.error.details[0].message).toMatch('match.query')
    const unknownPartner = await add(on409(), '3f0c9a52-7d1e-4c55-9a0e-1b2c3d4e5f60')
    expect(unknownPartner.status).toBe(404)
  })
})

describe('rules that take scenario decisions: the route runs, deciding as the rule says', () => {
  it('kyc: the onboarding it meets fails KYC; the next one passes', async () => {
    const { add, call } = await sandboxWithRules()
    const u = await registerAndLogin(call)
    const applicant = onboardingApplicant(u.user)
    const rule = await add({
      match: { method: 'POST', path: '/api/v1/partner/cards/onboarding' },
      decide: { kyc: 'kyc_fail' },
      once: true,
    })
    expect(rule.status, rule.text).toBe(201)
    const failed = await hostedOnboarding(call, u.bearer, applicant)
    expect(failed.completion).toMatchObject({
      status: 'failed',
      failure_reason: 'identity_verification_failed',
    })
    const passed = await hostedOnboarding(call, u.bearer, applicant)
    expect(passed.completion).toMatchObject({ status: 'completed', card: { status: 'active' } })
    const starts = (
      await journalOf(call, { method: 'POST', path: '/api/v1/partner/cards/onboarding' })
    ).map((e) => e.rules)
    expect(starts).toEqual([
      [],
      [{ id: rule.json.rule.id, effect: 'decide', decide: { kyc: 'kyc_fail' } }],
    ])
  })

  it("otp_code: the login it meets sends that code; later logins the scenario's", async () => {
    const { add, call } = await sandboxWithRules()
    const u = await registerAndLogin(call)
    const login = '/api/v1/partner/auth/login'
    await add({
      match: { method: 'POST', path: login },
      decide: { otp_code: '424242' },
      once: true,
    })
    const codeOfLogin = async () => {
      const res = await call('POST', login, {
        body: { email: u.user.email, password: u.user.password },
      })
      expect(res.status, res.text).toBe(200)
      const inbox = await call(
        'GET',
        `/_sandbox/inbox?kind=login_code&email=${encodeURIComponent(u.user.email)}`,
        { creds: null },
      )
      return inbox.json.data[0].code as string
    }
    expect(await codeOfLogin()).toBe('424242')
    expect(await codeOfLogin()).toBe('000000')
  })

  it('deposit_failure: the deposit it meets fails with that reason when it settles', async () => {
    const { add, call } = await sandboxWithRules()
    const u = await onboardedUser(call)
    const bank = await connectBank(call, u.bearer)
    const deposits = '/api/v1/partner/cards/deposits'
    await add({
      match: { method: 'POST', path: deposits },
      decide: { deposit_failure: 'account_closed' },
      once: true,
    })
    const deposit = async () => {
      const res = await call('POST', deposits, {
        headers: u.bearer,
        body: { amount: 25, external_bank_account_id: bank },
      })
      expect(res.status, res.text).toBe(201)
      return res.json.data.id as string
    }
    const failing = await deposit()
    const settling = await deposit()
    const advanced = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '31m' },
    })
    expect(advanced.status, advanced.text).toBe(200)
    const read = async (id: string) =>
      (await call('GET', `${deposits}/${id}`, { headers: u.bearer })).json.data
    expect(await read(failing)).toMatchObject({
      status: 'failed',
      failure_reason: 'account_closed',
    })
    expect(await read(settling)).toMatchObject({ status: 'succeeded' })
  })

  it('a decision and a delay meet one request together; both are journaled', async () => {
    const { add, call } = await sandboxWithRules()
    const u = await onboardedUser(call)
    const purchase = '/api/v1/partner/cards/simulate-purchase'
    await call('POST', '/api/v1/partner/cards/simulate-fund', {
      headers: u.bearer,
      body: { amount: 50 },
    })
    const slow = await add({ match: { path: '/api/v1/partner/cards/*' }, latency_ms: 1 })
    const decline = await add({
      match: { method: 'POST', path: purchase, body: { merchant: { name: 'Casino' } } },
      decide: { purchase_decline: 'merchant_blocked' },
    })
    const buy = (name: string) =>
      call('POST', purchase, { headers: u.bearer, body: { amount: 5, merchant: { name } } })
    expect((await buy('Casino')).json.data).toMatchObject({
      status: 'declined',
      decline_reason: 'merchant_blocked',
    })
    expect((await buy('Bakery')).json.data).toMatchObject({ status: 'pending' })
    const [bakery, casino] = await journalOf(call, { method: 'POST', path: purchase })
    // Newest first among equal priorities: the decision was added last.
    expect(casino.rules).toEqual([
      {
        id: decline.json.rule.id,
        effect: 'decide',
        decide: { purchase_decline: 'merchant_blocked' },
      },
      { id: slow.json.rule.id, effect: 'latency', latency_ms: 1 },
    ])
    expect(bakery.rules).toEqual([{ id: slow.json.rule.id, effect: 'latency', latency_ms: 1 }])
  })

  it('a decision is not used up by a request whose session is refused', async () => {
    const { add, call } = await sandboxWithRules()
    const u = await onboardedUser(call)
    const purchase = '/api/v1/partner/cards/simulate-purchase'
    await call('POST', '/api/v1/partner/cards/simulate-fund', {
      headers: u.bearer,
      body: { amount: 50 },
    })
    await add({
      match: { method: 'POST', path: purchase },
      decide: { purchase_decline: 'insufficient_funds' },
      once: true,
    })
    const body = { amount: 5, merchant: { name: 'Bakery' } }
    const refused = await call('POST', purchase, {
      headers: { authorization: 'Bearer not-a-session' },
      body,
    })
    expect(refused.status).toBe(401)
    const [entry] = await journalOf(call, { method: 'POST', path: purchase })
    expect(entry.rules).toEqual([])
    expect((await call('POST', purchase, { headers: u.bearer, body })).json.data).toMatchObject({
      status: 'declined',
      decline_reason: 'insufficient_funds',
    })
  })

  it('refuses a decision nobody takes and two effects at once, naming the field', async () => {
    const { add } = await sandboxWithRules()
    const empty = await add({ match: { path: '/api/v1/*' }, decide: {} })
    expect(empty.status).toBe(400)
    expect(empty.json.error.details[0]).toMatchObject({ field: 'decide' })
    const both = await add({
      match: { method: 'POST', path: REGISTER },
      respond: conflict409(),
      decide: { otp_code: '123456' },
    })
    expect(both.status).toBe(400)
    expect(both.json.error.details[0]).toMatchObject({ field: 'decide' })
  })
})

describe.runIf(testEngine === 'postgres')('rules on PostgreSQL, shared by replicas', () => {
  it('a once rule meets exactly one of the requests two replicas take at once', async () => {
    const database = freshDatabaseUrl()
    const one = await setup({ database })
    const two = await setup({ database })
    const added = await one.call('POST', '/_sandbox/rules', {
      creds: null,
      body: {
        match: { method: 'GET', path: '/api/v1/partner/me' },
        respond: { status: 503 },
        once: true,
      },
    })
    expect(added.status, added.text).toBe(201)
    const statuses = await Promise.all(
      Array.from(
        { length: 20 },
        async (_, n) => (await (n % 2 ? one : two).call('GET', '/api/v1/partner/me')).status,
      ),
    )
    expect(statuses.filter((s) => s === 503)).toHaveLength(1)
    expect(statuses.filter((s) => s === 200)).toHaveLength(19)
    // Both replicas see it gone.
    for (const replica of [one, two])
      expect((await replica.call('GET', '/_sandbox/rules', { creds: null })).json.data).toEqual([])
  })
})
