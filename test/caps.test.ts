import { describe, expect, it } from 'vitest'
import type { InboxMessage } from '../src/domain/inbox.js'
import { HISTORY_CAP_PER_PARTNER } from '../src/domain/retention.js'
import { fillHistory } from './full-history.js'
import { createPartner, receiverForTest, setup } from './helpers.js'
import { inboxOf } from './inbox-state.js'
import { journalEntry, standaloneJournal } from './journal-entry.js'
import { sinkRegistry } from './sink-registry.js'

/**
 * Every bounded collection stays at its bound at all times under steady traffic (README
 * "Retention", "Limits and hardening"), not only after a sweep or a read: each test goes past
 * the bound through the real code that adds, and reads the count after every step.
 */

describe('in-memory history', () => {
  it('the inbox holds at most its capacity, dropped messages let go at once', async () => {
    const inbox = await inboxOf(100)
    for (let n = 0; n < 350; n++) {
      const message: InboxMessage = {
        id: `msg_${n}`,
        partner_id: 'p',
        user_id: 'u',
        to: `user${n % 7}@example.test`,
        channel: 'email',
        kind: 'login_code',
        subject: 'code',
        body: 'code',
        code: '000000',
        created_at: new Date(n).toISOString(),
        expires_at: new Date(n).toISOString(),
      }
      await inbox.add(message)
      expect(await inbox.held()).toBe(Math.min(n + 1, 100))
    }
    expect((await inbox.list({ limit: 1_000 })).map((m) => m.id)[99]).toBe('msg_250')
    expect((await inbox.list({ email: 'user0@example.test', limit: 1_000 })).at(-1)?.id).toBe(
      'msg_252',
    )
  })

  it('the request journal holds its capacity', async () => {
    const journal = await standaloneJournal(50, 10)
    for (let n = 0; n < 130; n++) {
      journal.add(journalEntry(n))
      expect(await journal.count({})).toBe(Math.min(n + 1, 50))
    }
    const listed = await journal.list({ limit: 1_000 })
    expect(listed.data).toHaveLength(50)
    expect(listed.data.at(-1)?.path).toBe('/p/80')
  })

  it('sinks: at most maxSinks, each its newest maxRequests within maxBytes', async () => {
    const sinks = await sinkRegistry({ maxSinks: 3, maxRequests: 5, maxBytes: 1_000 })
    const now = new Date(0).toISOString()
    for (let n = 0; n < 40; n++) {
      const name = `sink${n % 5}`
      await sinks.receive(name, { method: 'POST', headers: {}, body: `{"n":${n}}`, now })
      expect(await sinks.size()).toBeLessThanOrEqual(3)
      expect((await sinks.read(name, 1_000)).data.length).toBeLessThanOrEqual(5)
    }
    for (let n = 0; n < 20; n++) {
      await sinks.receive('one', { method: 'POST', headers: {}, body: `{"n":${n}}`, now })
      expect((await sinks.read('one', 1_000)).data.length).toBe(Math.min(n + 1, 5))
    }
    expect((await sinks.read('one', 1_000)).data.map((r) => r.body)).toEqual(
      [19, 18, 17, 16, 15].map((n) => `{"n":${n}}`),
    )
    // Big bodies: the byte bound cuts before the count does.
    for (let n = 0; n < 10; n++) {
      await sinks.receive('big', { method: 'POST', headers: {}, body: 'x'.repeat(400), now })
      expect((await sinks.read('big', 1_000)).data.length).toBeLessThanOrEqual(2)
    }
  })
})

describe(`events and deliveries: ${HISTORY_CAP_PER_PARTNER} per partner at all times`, () => {
  it('a new event and its delivery push out the oldest at once, not at the next sweep', async () => {
    // Frozen: no sweep runs between the steps, so only the write-time cap can hold the bound.
    const t = await setup({}, { frozenAt: true })
    const receiver = await receiverForTest()
    const partner = await createPartner(t.call, { name: 'Busy', webhook_url: receiver.url })
    // A full history, every delivery finished within the last 24 hours.
    await fillHistory(t.sandbox, partner.id)
    const events = () => t.sandbox.services.state.count('events_by_partner', partner.id)
    const deliveries = () => t.sandbox.services.state.count('deliveries_by_partner', partner.id)
    for (let n = 0; n < 5; n++) {
      const res = await t.call('POST', '/_sandbox/events', {
        creds: null,
        body: { partner_id: partner.id, type: 'webhook.test', object: { object: 'test', n } },
      })
      expect(res.status, res.text).toBe(201)
      // The cap pass follows the event's commit: on PostgreSQL, after the answer went out.
      await t.sandbox.services.retention.settled()
      expect(await events()).toBe(HISTORY_CAP_PER_PARTNER)
      expect(await deliveries()).toBe(HISTORY_CAP_PER_PARTNER)
      expect(await t.sandbox.services.state.get('events', res.json.event.id)).toBeDefined()
    }
    // The oldest went first.
    expect(await t.sandbox.services.state.get('events', 'evt_full00004')).toBeUndefined()
    expect(await t.sandbox.services.state.get('events', 'evt_full00005')).toBeDefined()
    expect(
      await t.sandbox.services.state.get('webhook_deliveries', 'dlv_full00004'),
    ).toBeUndefined()
    await t.sandbox.services.dispatcher.runDue()
    await t.sandbox.services.retention.settled()
    expect(receiver.requests.length).toBeGreaterThanOrEqual(5)
    expect(await deliveries()).toBe(HISTORY_CAP_PER_PARTNER)
  })
})
