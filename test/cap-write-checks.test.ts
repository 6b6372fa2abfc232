import { describe, expect, it } from 'vitest'
import { HISTORY_CAP_PER_PARTNER } from '../src/domain/retention.js'
import type { IndexName } from '../src/state/indexes.js'
import type { EventRow } from '../src/store/records.js'
import { fillHistory } from './full-history.js'
import { createPartner, receiverForTest, setup } from './helpers.js'

// A partner's new event holds it to its caps at once, however its history was written (by
// another writer, or a whole-state replace): the write-time check counts it from the state.

/** A frozen sandbox (no sweep) whose state counts are recorded, and a partner with an endpoint. */
async function countedPartner() {
  const t = await setup({}, { frozenAt: true })
  const { state } = t.sandbox.services
  const counts: IndexName[] = []
  const count = state.count.bind(state)
  state.count = (index, key) => {
    counts.push(index)
    return count(index, key)
  }
  const receiver = await receiverForTest()
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

describe(`write-time cap checks (${HISTORY_CAP_PER_PARTNER} per partner)`, () => {
  it('count the partner on each event and hold the caps when another writer filled its history', async () => {
    const { counts, emit, history, partner, sandbox } = await countedPartner()
    await emit(0)
    expect(capCounts(counts)).toBe(2)
    // Another writer fills the partner's history (as another replica would): the next event's
    // check counts and prunes.
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
    const { emit, history, partner, sandbox, state } = await countedPartner()
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
