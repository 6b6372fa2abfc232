import { describe, expect, it } from 'vitest'
import { JournalRings } from '../src/services/journal-rings.js'
import { journalEntry } from './journal-entry.js'

/** The request journal's rings on the memory engine (src/services/journal-rings.ts). */

const rings = (capacity: number, bodyWindow: number) => new JournalRings(capacity, bodyWindow)

const ids = (journal: JournalRings, partnerId?: string) =>
  [...journal.newestFirst(partnerId)].map((row) => row.entry.id)

describe('JournalRings', () => {
  it('keeps the newest entries, each partner its own, and the newest captures', () => {
    const journal = rings(5, 2)
    for (let n = 1; n <= 8; n++) {
      const { capture: _, ...entry } = journalEntry(n, n % 2 ? 'odd' : 'even')
      journal.add(entry, { requestHeaders: { n: String(n) }, requestBody: {} } as never)
    }
    expect(ids(journal)).toEqual(['req_8', 'req_7', 'req_6', 'req_5', 'req_4'])
    expect(ids(journal, 'odd')).toEqual(['req_7', 'req_5'])
    expect(ids(journal, 'even')).toEqual(['req_8', 'req_6', 'req_4'])
    expect(ids(journal, 'nobody')).toEqual([])
    const captured = [...journal.newestFirst(undefined)].map((row, i) =>
      journal.captureOf(row.seq, 7 - i),
    )
    expect(
      captured.map((c) => (c?.requestHeaders as Record<string, string> | undefined)?.n),
    ).toEqual(['8', '7', undefined, undefined, undefined])
    expect(journal.count('even', () => true)).toBe(3)
    expect(journal.count(undefined, (e) => e.path === '/p/6')).toBe(1)
  })

  it('once cleared reads nothing older, and journals on', () => {
    const journal = rings(5, 2)
    for (let n = 1; n <= 3; n++) journal.add(journalEntry(n, 'p'), null)
    journal.clear()
    expect(ids(journal)).toEqual([])
    expect(ids(journal, 'p')).toEqual([])
    journal.add(journalEntry(4, 'p'), null)
    expect(ids(journal)).toEqual(['req_4'])
    expect(ids(journal, 'p')).toEqual(['req_4'])
  })

  it('a reader that waits while requests come stops where the ring no longer holds its next', () => {
    for (const partnerId of [undefined, 'p']) {
      const journal = rings(5, 2)
      for (let n = 1; n <= 5; n++) journal.add(journalEntry(n, 'p'), null)
      const reader = journal.newestFirst(partnerId)
      const read = [reader.next().value?.entry.id, reader.next().value?.entry.id]
      // Four newer requests take the slots of req_1 to req_4: req_3 is gone.
      for (let n = 6; n <= 9; n++) journal.add(journalEntry(n, 'p'), null)
      read.push(...[...reader].map((row) => row.entry.id))
      expect(read).toEqual(['req_5', 'req_4'])
    }
  })

  it('forgets partners whose entries all left the ring, however many came and went', () => {
    const journal = rings(100, 10)
    // 5,000 partners, 3 requests each, one after another: only the last 100 requests stay.
    for (let n = 0; n < 15_000; n++) journal.add(journalEntry(n, `p${Math.floor(n / 3)}`), null)
    expect(ids(journal, 'p4999')).toEqual(['req_14999', 'req_14998', 'req_14997'])
    expect(ids(journal, 'p100')).toEqual([])
    const lists = (journal as unknown as { byPartner: Map<string, { numbers: number[] }> })
      .byPartner
    // At most two rings' worth of partners (a sweep runs every ring's worth of requests).
    expect(lists.size).toBeLessThanOrEqual(2 * 100)
    const numbers = [...lists.values()].reduce((sum, list) => sum + list.numbers.length, 0)
    expect(numbers).toBeLessThanOrEqual(2 * 100)
  })
})
