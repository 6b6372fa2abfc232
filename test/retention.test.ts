import { describe, expect, it } from 'vitest'
import { INBOX_CAPACITY } from '../src/domain/inbox.js'
import { BATCH, HISTORY_CAP_PER_PARTNER, Retention } from '../src/domain/retention.js'
import type { EventRow } from '../src/store/records.js'
import {
  acme,
  bearer,
  type Call,
  createPartner,
  loginAs,
  onboardedUser,
  receiverForTest,
  registerAndLogin,
  setup,
  storedRow,
  storedRows,
  type TestSandbox,
} from './helpers.js'

/**
 * Retention on the sandbox clock (docs/retention.md): each rule is checked on both sides of
 * its window, the row still there just before and gone just after.
 */

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** The rows of `collection` whose `field` is `value`, as the sandbox's snapshot holds them. */
const rowsWhere = async (call: Call, collection: string, field: string, value: string) =>
  (await storedRows(call, collection)).filter((row) => row[field] === value)

const codesOf = (t: TestSandbox, userId: string) =>
  rowsWhere(t.call, 'verification_codes', 'user_id', userId)

describe('login codes and sessions', () => {
  it('a used code stays a day after it expired, then goes', async () => {
    const t = await setup({}, { frozenAt: true })
    const { userId } = await registerAndLogin(t.call)
    const [code] = await codesOf(t, userId)
    expect(code?.ended_reason).toBe('used')
    // Expired after 10 minutes; kept until a day after that, removed within the next hour.
    await t.sandbox.clock.advance(10 * 60_000 + DAY - 60_000)
    expect(await codesOf(t, userId)).toHaveLength(1)
    await t.sandbox.clock.advance(HOUR + 2 * 60_000)
    expect(await codesOf(t, userId)).toHaveLength(0)
  })

  it('an unused code that expired goes a day later too; a live one stays', async () => {
    const t = await setup({}, { frozenAt: true })
    const { user, userId } = await registerAndLogin(t.call)
    await t.call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    await t.sandbox.clock.advance(DAY + 2 * HOUR)
    expect(await codesOf(t, userId)).toHaveLength(0)
    await t.call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    await t.sandbox.clock.advance(5 * 60_000)
    expect(await codesOf(t, userId)).toHaveLength(1)
  })

  it("runs on each partner's own clock: advancing one partner prunes only its codes", async () => {
    const t = await setup({}, { frozenAt: true })
    const a = await createPartner(t.call, { name: 'Ahead' })
    const b = await createPartner(t.call, { name: 'Behind' })
    const userA = await registerAndLogin(t.call, {}, a.creds)
    const userB = await registerAndLogin(t.call, {}, b.creds)
    const advanced = await t.call('POST', `/_sandbox/partners/${a.id}/clock/advance`, {
      creds: null,
      body: { by: '2d' },
    })
    expect(advanced.status, advanced.text).toBe(200)
    expect(await codesOf(t, userA.userId)).toHaveLength(0)
    expect(await codesOf(t, userB.userId)).toHaveLength(1)
  })

  it('a logged-out session stays a day, then goes; its token keeps getting 401', async () => {
    const t = await setup({}, { frozenAt: true })
    const { userId, token } = await registerAndLogin(t.call)
    expect(
      (await t.call('POST', '/api/v1/partner/auth/logout', { headers: bearer(token) })).status,
    ).toBe(200)
    const sessions = () => rowsWhere(t.call, 'sessions', 'user_id', userId)
    await t.sandbox.clock.advance(DAY - 60_000)
    expect(await sessions()).toHaveLength(1)
    await t.sandbox.clock.advance(HOUR + 2 * 60_000)
    expect(await sessions()).toHaveLength(0)
    const me = await t.call('GET', '/api/v1/partner/users/me', { headers: bearer(token) })
    expect(me.status).toBe(401)
    expect(me.json.error.message).toContain('no longer exists')
  })

  it('a session that expired stays a day past its expiry; a live one is never removed', async () => {
    const t = await setup({}, { frozenAt: true })
    const { userId } = await registerAndLogin(t.call)
    const sessions = () => rowsWhere(t.call, 'sessions', 'user_id', userId)
    // The session lives 24 h; kept until 48 h, gone within the hour after.
    await t.sandbox.clock.advance(2 * DAY - 60_000)
    expect(await sessions()).toHaveLength(1)
    await t.sandbox.clock.advance(HOUR + 2 * 60_000)
    expect(await sessions()).toHaveLength(0)
  })
})

/** A partner whose every event is delivered to a receiver answering 200. */
async function partnerWithEndpoint(call: Call) {
  const receiver = await receiverForTest()
  const partner = await createPartner(call, { name: 'Retention', webhook_url: receiver.url })
  return { partner, receiver }
}

describe('events and deliveries', () => {
  it('are kept 30 days, then go; the usage of the last 24 h and the ledger are unchanged', async () => {
    const t = await setup({}, { frozenAt: true })
    const { partner, receiver } = await partnerWithEndpoint(t.call)
    const user = await onboardedUser(t.call, {}, partner.creds)
    const funded = await t.call('POST', '/api/v1/partner/cards/simulate-fund', {
      creds: partner.creds,
      headers: user.bearer,
      body: { amount: 12.5 },
    })
    expect(funded.status, funded.text).toBe(200)
    await t.sandbox.services.dispatcher.runDue()
    const events = () => rowsWhere(t.call, 'events', 'partner_id', partner.id)
    const deliveries = () => rowsWhere(t.call, 'webhook_deliveries', 'partner_id', partner.id)
    const count = (await events()).length
    expect(count).toBeGreaterThan(2)
    expect(await deliveries()).toHaveLength(count)
    expect(receiver.requests).toHaveLength(count)

    await t.sandbox.clock.advance(30 * DAY - 60_000)
    expect(await events()).toHaveLength(count)
    expect(await deliveries()).toHaveLength(count)
    // Kept by the day: gone by the end of the day after the 30 days.
    await t.sandbox.clock.advance(DAY + 2 * 60_000)
    expect(await events()).toHaveLength(0)
    expect(await deliveries()).toHaveLength(0)

    // Money is not history: the card, its balance and its transactions are all still there.
    const txns = await t.call('GET', '/api/v1/partner/cards/transactions', {
      creds: partner.creds,
      headers: bearer(await loginAs(t.call, user.user.email, user.user.password, partner.creds)),
    })
    expect(txns.status, txns.text).toBe(200)
    expect(txns.json.data.data.map((x: { amount: number }) => x.amount)).toContain(12.5)
  })

  it('keeps a delivery still to attempt, and its event, past 30 days', async () => {
    const t = await setup({}, { frozenAt: true })
    const loaded = await t.call('POST', '/_sandbox/scenarios', {
      creds: null,
      body: {
        name: 'slow-first-attempt',
        description: 'The first attempt waits 40 days.',
        webhooks: { retry_delays_ms: [40 * DAY, 0, 0, 0] },
      },
    })
    expect(loaded.status, loaded.text).toBe(201)
    const receiver = await receiverForTest()
    const partner = await createPartner(t.call, {
      name: 'Patient',
      webhook_url: receiver.url,
      scenario: 'slow-first-attempt',
    })
    const user = await registerAndLogin(t.call, {}, partner.creds)
    const [event] = await t.sandbox.services.state.lookup('events_by_partner', partner.id)
    expect(event?.type).toBe('user.created')
    await t.sandbox.clock.advance(35 * DAY)
    expect(await storedRow(t.call, 'events', event?.id as string)).toBeDefined()
    const [pending] = await t.sandbox.services.state.lookup('deliveries_by_partner', partner.id)
    expect(pending?.status).toBe('pending')
    await t.sandbox.clock.advance(6 * DAY)
    expect(receiver.requests).toHaveLength(1)
    expect(JSON.parse(receiver.requests[0]?.body.toString() ?? '{}').id).toBe(event?.id)
    // Finished now: it counts in the last 24 h, so it stays that long, then both go.
    const usage = await t.call('GET', '/api/v1/partner/usage', { creds: partner.creds })
    expect(usage.json.last_24h.webhook_deliveries_succeeded).toBe(1)
    expect(await storedRow(t.call, 'webhook_deliveries', pending?.id as string)).toBeDefined()
    await t.sandbox.clock.advance(DAY + 2 * HOUR)
    expect(await storedRow(t.call, 'webhook_deliveries', pending?.id as string)).toBeUndefined()
    expect(await storedRow(t.call, 'events', event?.id as string)).toBeUndefined()
    expect(user.userId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('a page cursor naming a removed delivery is a 400 that says why', async () => {
    const t = await setup({}, { frozenAt: true })
    const { partner } = await partnerWithEndpoint(t.call)
    await registerAndLogin(t.call, {}, partner.creds)
    await t.sandbox.services.dispatcher.runDue()
    const hooks = await t.call('GET', '/api/v1/partner/webhooks', { creds: partner.creds })
    const hookId = hooks.json.data[0].id
    const list = `/api/v1/partner/webhooks/${hookId}/deliveries`
    const page = await t.call('GET', `${list}?limit=1`, { creds: partner.creds })
    const cursor = page.json.data[0].id
    expect(
      (await t.call('GET', `${list}?starting_after=${cursor}`, { creds: partner.creds })).status,
    ).toBe(200)
    await t.sandbox.clock.advance(32 * DAY)
    const after = await t.call('GET', `${list}?starting_after=${cursor}`, { creds: partner.creds })
    expect(after.status).toBe(400)
    expect(after.json.error.details[0].field).toBe('starting_after')
    expect(after.json.error.message).toContain('retention')
  })

  it(`keeps at most ${HISTORY_CAP_PER_PARTNER} events per partner, oldest first, in batches`, async () => {
    const t = await setup({}, { frozenAt: true })
    const chatty = await createPartner(t.call, { name: 'Chatty' })
    const partnerId = chatty.id
    const other = (await t.sandbox.services.state.lookupOne('partners_by_api_key', acme.key))
      ?.id as string
    const now = t.sandbox.clock.iso()
    const extra = 2 * BATCH + 10
    const rows = (partner: string, n: number, prefix: string): EventRow[] =>
      Array.from({ length: n }, (_, i) => ({
        id: `evt_${prefix}${String(i).padStart(6, '0')}`,
        partner_id: partner,
        type: 'webhook.test',
        created_at: now,
        data: { object: { n: i } },
      }))
    await t.sandbox.services.state.transaction(async (tx) => {
      for (const row of rows(partnerId, HISTORY_CAP_PER_PARTNER + extra, 'cap'))
        tx.put('events', row)
      for (const row of rows(other, 100, 'other')) tx.put('events', row)
    })
    const count = () => t.sandbox.services.state.count('events_by_partner', partnerId)
    // Retention looks at partners that emitted an event: this one registers a user.
    await registerAndLogin(t.call, {}, chatty.creds)
    expect(await count()).toBe(HISTORY_CAP_PER_PARTNER + extra + 1)
    await t.sandbox.services.sweeper.run()
    // One run removes one batch: a backlog never stalls the event loop in one go.
    expect(await count()).toBe(HISTORY_CAP_PER_PARTNER + extra + 1 - BATCH)
    await t.sandbox.services.sweeper.run()
    await t.sandbox.services.sweeper.run()
    expect(await count()).toBe(HISTORY_CAP_PER_PARTNER)
    expect(await t.sandbox.services.state.get('events', 'evt_cap000000')).toBeUndefined()
    expect(
      await t.sandbox.services.state.get('events', `evt_cap${String(extra + 1).padStart(6, '0')}`),
    ).toBeDefined()
    expect(await t.sandbox.services.state.count('events_by_partner', other)).toBe(100)
  })
})

describe('incremental pruning', () => {
  it(`removes at most ${BATCH} rows of a kind per run, and the backlog drains`, async () => {
    const t = await setup({}, { frozenAt: true })
    const { userId } = await registerAndLogin(t.call)
    const [template] = await t.sandbox.services.state.lookup('codes_by_user', userId)
    if (!template) throw new Error('no code')
    await t.sandbox.services.state.transaction(async (tx) => {
      for (let i = 0; i < BATCH * 2 + 7; i++)
        tx.put('verification_codes', { ...template, id: `otp_bulk${i}` })
    })
    t.sandbox.clock.freeze(t.sandbox.clock.now() + 2 * DAY)
    const left = async () => (await codesOf(t, userId)).length
    await t.sandbox.services.sweeper.run()
    expect(await left()).toBe(BATCH + 8)
    await t.sandbox.services.sweeper.run()
    await t.sandbox.services.sweeper.run()
    expect(await left()).toBe(0)
  })
})

describe('in-memory caps', () => {
  // 5,010 transactions one after another: on PostgreSQL, on a loaded machine, that takes a
  // while (the cap is what is checked, not the time).
  it('the inbox keeps its last 5,000 messages', { timeout: 120_000 }, async () => {
    const { sandbox } = await setup()
    const message = (n: number) => ({
      id: `msg_${n}`,
      partner_id: 'p',
      user_id: 'u',
      to: `user${n}@example.test`,
      channel: 'email' as const,
      kind: 'login_code' as const,
      subject: 'code',
      body: 'code',
      code: '000000',
      created_at: sandbox.clock.iso(),
      expires_at: sandbox.clock.iso(),
    })
    for (let n = 0; n < 5_010; n++) await sandbox.services.inbox.add(message(n))
    expect(await sandbox.services.inbox.list({ limit: 10_000 })).toHaveLength(5_000)
    expect(await sandbox.services.inbox.list({ email: 'user9@example.test' })).toHaveLength(0)
    expect(await sandbox.services.inbox.list({ email: 'user10@example.test' })).toHaveLength(1)
  })

  it('the request journal keeps the first 2,048 characters of a long path', async () => {
    const { call } = await setup()
    const path = `/api/v1/${'x'.repeat(3_000)}`
    expect((await call('GET', path)).status).toBe(404)
    const journal = await call('GET', '/_sandbox/requests?limit=1', { creds: null })
    expect(journal.json.data[0].path).toBe(path.slice(0, 2_048))
  })
})

describe('the retention page (docs/retention.md)', () => {
  it('states the retention figures the code uses', async () => {
    const { readFileSync } = await import('node:fs')
    const page = readFileSync(new URL('../docs/retention.md', import.meta.url), 'utf8')
    const section = /^# Retention\n([\s\S]*?)\n## Memory/.exec(page)?.[1] ?? ''
    expect(section).toContain(`at most ${BATCH} rows per rule per run`)
    expect(section).toContain(
      `at most ${HISTORY_CAP_PER_PARTNER.toLocaleString('en-US')} of each per partner`,
    )
    expect(section).toContain('30 days')
    expect(section).toContain('Until a day after they expired')
    expect(section).toContain(`The last ${INBOX_CAPACITY.toLocaleString('en-US')} messages`)
  })
})

describe('the first sweep after a start', () => {
  it('counts the partners below their caps outside its transaction, and only those over in it', async () => {
    const t = await setup({}, { frozenAt: true })
    const { state } = t.sandbox.services
    const partners = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createPartner(t.call, { name: `Quiet ${i}` })),
    )
    const loud = partners[0]?.id as string
    const now = t.sandbox.clock.iso()
    await state.transaction(async (tx) => {
      for (let i = 0; i < HISTORY_CAP_PER_PARTNER + 3; i++)
        tx.put('events', {
          id: `evt_loud${String(i).padStart(6, '0')}`,
          partner_id: loud,
          type: 'webhook.test',
          created_at: now,
          data: { object: { n: i } },
        })
    })
    // A retention of its own, as a process starting on this state has: every partner may be
    // over its caps. Its transactions' counts are told apart from the others.
    const counted: string[] = []
    const watched: typeof state = Object.create(state)
    watched.transaction = (fn, scope) =>
      state.transaction(
        (tx) =>
          fn(
            Object.assign(Object.create(tx), {
              count: (index: Parameters<typeof tx.count>[0], key: string) => {
                if (index.endsWith('_by_partner')) counted.push(key)
                return tx.count(index, key)
              },
            }),
          ),
        scope,
      )
    const retention = new Retention({ state: watched, logger: { error: () => {} } })
    await retention.run({ nowOf: () => t.sandbox.clock.now() })
    expect(await state.count('events_by_partner', loud)).toBe(HISTORY_CAP_PER_PARTNER)
    // Two counts (events, deliveries) of the one partner over its caps, none of the others.
    expect(counted.filter((key) => key === loud)).toHaveLength(2)
    expect(new Set(counted)).toEqual(new Set([loud]))
  })
})
