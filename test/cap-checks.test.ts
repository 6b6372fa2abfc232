import { describe, expect, it } from 'vitest'
import { HISTORY_CAP_PER_PARTNER, Retention } from '../src/domain/retention.js'
import { MemoryState } from '../src/state/memory-state.js'
import type { State } from '../src/state/seam.js'
import { defineIndexes } from '../src/store/indexes.js'
import { type EventRow, emptyCollections } from '../src/store/records.js'
import { Store } from '../src/store/store.js'

// The write-time cap check (Retention.capPartner) runs one at a time per partner and serves
// every event heard while it runs: an event written at any point of a check must still be
// counted, by that check or by the next.

const PARTNER = 'ptn_caps'
const event = (id: string): EventRow => ({
  id,
  partner_id: PARTNER,
  type: 'webhook.test',
  created_at: '2026-01-01T00:00:00.000Z',
  data: { object: { id } },
})
const oldest = (i: number) => `evt_${String(i).padStart(5, '0')}`

/** A partner with `size` events, the oldest first. */
async function history(size = HISTORY_CAP_PER_PARTNER) {
  const store = await Store.open({ seed: emptyCollections })
  defineIndexes(store)
  const state = new MemoryState(store)
  await state.transaction(async (tx) => {
    for (let i = 0; i < size; i++) tx.put('events', event(oldest(i)))
  })
  const errors: string[] = []
  const count = () => store.count('events', 'events_by_partner', PARTNER)
  return { store, state, count, errors, logger: { error: (m: string) => errors.push(m) } }
}

describe('the write-time cap check', () => {
  it('an event written just after a check counted is checked again, not left over the cap', async () => {
    // One under the cap: the first event reaches it, so the check's count finds nothing over.
    const { state, count, errors, logger } = await history(HISTORY_CAP_PER_PARTNER - 1)
    let retention: Retention | undefined
    let written = false
    // The state as the check sees it, writing one more event just after the check's first
    // count (as another request's commit would, between two awaits), and telling the check
    // of it as the event bus does.
    const racing = new Proxy(state, {
      get(target, name, receiver) {
        if (name !== 'count') return Reflect.get(target, name, receiver)
        return async (index: 'events_by_partner', key: string) => {
          const counted = await target.count(index, key)
          if (!written && index === 'events_by_partner') {
            written = true
            await target.transaction(async (tx) => tx.put('events', event('evt_late')))
            void retention?.capPartner(PARTNER)
          }
          return counted
        }
      },
    }) as State
    retention = new Retention({ state: racing, logger })
    await state.transaction(async (tx) => tx.put('events', event('evt_first')))
    await retention.capPartner(PARTNER)
    expect(errors).toEqual([])
    expect(written).toBe(true)
    expect(count()).toBe(HISTORY_CAP_PER_PARTNER)
    expect(await state.get('events', 'evt_first')).toBeDefined()
    expect(await state.get('events', 'evt_late')).toBeDefined()
    expect(await state.get('events', oldest(0))).toBeUndefined()
    expect(await state.get('events', oldest(1))).toBeDefined()
  })

  it('the events of one commit, heard one by one, go over the cap in one transaction', async () => {
    const { state, count, errors, logger } = await history()
    let transactions = 0
    const counted = new Proxy(state, {
      get(target, name, receiver) {
        if (name === 'transaction') transactions++
        return Reflect.get(target, name, receiver)
      },
    }) as State
    const retention = new Retention({ state: counted, logger })
    await state.transaction(async (tx) => {
      for (const id of ['evt_a', 'evt_b', 'evt_c']) tx.put('events', event(id))
    })
    // As the event bus tells of them: each in a microtask of its own.
    const checks = ['evt_a', 'evt_b', 'evt_c'].map(
      () =>
        new Promise<void>((done) => queueMicrotask(() => retention.capPartner(PARTNER).then(done))),
    )
    await Promise.all(checks)
    expect(errors).toEqual([])
    expect(count()).toBe(HISTORY_CAP_PER_PARTNER)
    expect(await state.get('events', oldest(2))).toBeUndefined()
    expect(await state.get('events', oldest(3))).toBeDefined()
    expect(transactions).toBe(1)
  })
})
