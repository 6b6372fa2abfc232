import { afterEach, describe, expect, it } from 'vitest'
import { CapGauge } from '../src/domain/cap-gauge.js'
import { CAP_SLACK, HISTORY_CAP_PER_PARTNER } from '../src/domain/retention.js'
import type { IndexName } from '../src/state/indexes.js'
import type { Change } from '../src/state/seam.js'
import type { EventRow } from '../src/store/records.js'
import { fillHistory } from './full-history.js'
import { createPartner, type Receiver, startReceiver, testSandbox } from './helpers.js'

// A write-time cap check far below the caps counts nothing (cap-gauge.ts): the bound it trusts
// is the last exact count plus every event and delivery heard written since. These tests hold
// it to never trusting a bound that may be under the truth: writes heard since, a whole-state
// replace, and a count under way when one happens.

const CAP = 100
const SLACK = 10
const event = (partnerId: string): Change => ({
  collection: 'events',
  id: 'evt',
  row: { id: 'evt', partner_id: partnerId },
})
const counted =
  (events: number, deliveries = 0) =>
  async () => ({ events, deliveries })

describe('the cap gauge', () => {
  it('trusts nothing before a partner was counted, then its count while far under the caps', async () => {
    const gauge = new CapGauge(CAP, SLACK)
    expect(gauge.surelyUnder('p')).toBe(false)
    await gauge.count('p', counted(CAP - SLACK - 3))
    expect(gauge.surelyUnder('p')).toBe(true)
    // Other partners are not counted by it.
    expect(gauge.surelyUnder('q')).toBe(false)
  })

  it('adds every event and delivery heard since the count, and stops trusting within the slack', async () => {
    const gauge = new CapGauge(CAP, SLACK)
    await gauge.count('p', counted(CAP - SLACK - 2))
    gauge.hear([event('p'), event('q')])
    gauge.hear([{ collection: 'users', id: 'u', row: { id: 'u', partner_id: 'p' } }])
    expect(gauge.surelyUnder('p')).toBe(true)
    gauge.hear([{ collection: 'webhook_deliveries', id: 'd', row: { id: 'd', partner_id: 'p' } }])
    // Events at cap - slack - 1, deliveries at 1: both within bounds.
    expect(gauge.surelyUnder('p')).toBe(true)
    gauge.hear([event('p'), event('p')])
    expect(gauge.surelyUnder('p')).toBe(false)
  })

  it('never takes a removal off: the bound only errs upward', async () => {
    const gauge = new CapGauge(CAP, SLACK)
    await gauge.count('p', counted(CAP - SLACK))
    gauge.hear([{ collection: 'events', id: 'evt', row: undefined }])
    expect(gauge.surelyUnder('p')).toBe(true)
    gauge.hear([event('p')])
    expect(gauge.surelyUnder('p')).toBe(false)
  })

  it('adds what is heard while a count runs, and keeps no count begun before a replace', async () => {
    const gauge = new CapGauge(CAP, SLACK)
    let finish: (n: number) => void = () => {}
    const running = gauge.count(
      'p',
      () => new Promise((r) => (finish = (n) => r({ events: n, deliveries: 0 }))),
    )
    // Written during the count: it may or may not be in it, so it is added.
    for (let i = 0; i < 5; i++) gauge.hear([event('p')])
    finish(CAP - SLACK - 4)
    await running
    expect(gauge.surelyUnder('p')).toBe(false)

    const before = gauge.count(
      'q',
      () => new Promise((r) => (finish = (n) => r({ events: n, deliveries: 0 }))),
    )
    gauge.forget()
    finish(0)
    await before
    expect(gauge.surelyUnder('q')).toBe(false)
  })
})

const receivers: Receiver[] = []
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()))
})

/** A frozen sandbox (no sweep) whose state counts are recorded, and a partner with an endpoint. */
async function setup() {
  const t = await testSandbox()
  t.sandbox.clock.freeze()
  const { state } = t.sandbox.services
  const counts: IndexName[] = []
  const count = state.count.bind(state)
  state.count = (index, key) => {
    counts.push(index)
    return count(index, key)
  }
  const receiver = await startReceiver()
  receivers.push(receiver)
  const partner = await createPartner(t.call, { name: 'Counted', webhook_url: receiver.url })
  const emit = async (n: number) => {
    const res = await t.call('POST', '/_sandbox/events', {
      creds: null,
      body: { partner_id: partner.id, type: 'webhook.test', object: { object: 'test', n } },
    })
    expect(res.status, res.text).toBe(201)
    await t.sandbox.services.retention.settled()
    return res.json.event.id as string
  }
  const history = async () => ({
    events: await count('events_by_partner', partner.id),
    deliveries: await count('deliveries_by_partner', partner.id),
  })
  return { ...t, state, counts, partner, emit, history }
}

const capCounts = (counts: IndexName[]) =>
  counts.filter((c) => c === 'events_by_partner' || c === 'deliveries_by_partner').length

describe(`write-time cap checks (${HISTORY_CAP_PER_PARTNER} per partner, slack ${CAP_SLACK})`, () => {
  it('far below the caps, count the partner once, not on every event', async () => {
    const { counts, emit, history, sandbox } = await setup()
    for (let n = 0; n < 20; n++) await emit(n)
    // One check counted both kinds; the 19 after it trusted the bound.
    expect(capCounts(counts)).toBe(2)
    expect(await history()).toEqual({ events: 20, deliveries: 20 })
    await sandbox.close()
  }, 60_000)

  it('count again once the writes heard since bring the partner near a cap, and hold the caps', async () => {
    const { counts, emit, history, partner, sandbox } = await setup()
    await emit(0)
    expect(capCounts(counts)).toBe(2)
    // Another writer fills the partner's history (as another replica would): heard, so the
    // bound is no longer trusted and the next event's check counts and prunes.
    await fillHistory(sandbox, partner.id)
    const newest = await emit(1)
    expect(capCounts(counts)).toBeGreaterThan(2)
    expect(await history()).toEqual({
      events: HISTORY_CAP_PER_PARTNER,
      deliveries: HISTORY_CAP_PER_PARTNER,
    })
    expect(await sandbox.services.state.get('events', newest)).toBeDefined()
    await sandbox.close()
  }, 120_000)

  it('count again after a whole-state replace that brought the partner over a cap', async () => {
    const { emit, history, partner, sandbox, state } = await setup()
    await emit(0)
    // A restore whose snapshot holds the partner over its events cap: never heard row by row.
    const doc = await state.export()
    const old = new Date(sandbox.clock.now() - 3_600_000).toISOString()
    for (let i = 0; i < HISTORY_CAP_PER_PARTNER + 5; i++) {
      const row: EventRow = {
        id: `evt_restored${String(i).padStart(5, '0')}`,
        partner_id: partner.id,
        type: 'webhook.test',
        created_at: old,
        data: { object: { n: i } },
      }
      doc.collections.events[row.id] = row
    }
    await state.replaceAll(doc.collections)
    await emit(1)
    expect((await history()).events).toBe(HISTORY_CAP_PER_PARTNER)
    await sandbox.close()
  }, 120_000)
})
