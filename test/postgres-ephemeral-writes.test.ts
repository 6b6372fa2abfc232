import { expect, it } from 'vitest'
import { EphemeralWrites } from '../src/state/postgres/ephemeral-writes.js'
import { batchUpsertOf } from '../src/state/postgres/statements.js'
import type { EphemeralPut } from '../src/state/seam.js'

// How a PostgreSQL replica sends the request journal's rows: while a statement is on its way,
// the rows put meanwhile wait and go together as the next one. Against a stand-in for the
// driver that answers when told, so what was sent, and when, can be read.

interface Sent {
  text: string
  params: unknown[]
  settle: (error?: Error) => void
}

function driver() {
  const sent: Sent[] = []
  const query = (text: string, params: unknown[]) =>
    new Promise<void>((resolve, reject) => {
      sent.push({ text, params, settle: (error) => (error ? reject(error) : resolve()) })
    })
  return { sent, writes: new EphemeralWrites(query) }
}

const entry = (slot: number, n: number): EphemeralPut => ({
  collection: 'request_journal',
  row: { id: `jrn_${slot}`, seq: String(n), entry: { id: `req_${n}`, partner_id: 'p1' } } as never,
})
const capture = (slot: number, n: number): EphemeralPut => ({
  collection: 'request_captures',
  row: { id: `jrn_${slot}`, seq: String(n), capture: null } as never,
})
/** The ids of a sent statement's rows of its first collection (its first array). */
const idsOf = (one: Sent) => one.params[0]
const flush = () => new Promise((resolve) => setImmediate(resolve))

it('sends a lone put at once, and the puts made meanwhile as one statement after it', async () => {
  const { sent, writes } = driver()
  const done: number[] = []
  writes.put([entry(0, 0)]).then(() => done.push(0))
  expect(sent).toHaveLength(1)
  for (let n = 1; n <= 5; n++) writes.put([entry(n, n), capture(n, n)]).then(() => done.push(n))
  // Nothing more goes while the first is on its way.
  expect(sent).toHaveLength(1)
  sent[0]?.settle()
  await flush()
  expect(done).toEqual([0])
  expect(sent).toHaveLength(2)
  const second = sent[1] as Sent
  expect(second.text).toBe(batchUpsertOf(['request_captures', 'request_journal']))
  // The captures' arrays first (the collections in name order), then the journal's.
  expect(idsOf(second)).toEqual(['jrn_1', 'jrn_2', 'jrn_3', 'jrn_4', 'jrn_5'])
  second.settle()
  await flush()
  expect(done).toEqual([0, 1, 2, 3, 4, 5])
  expect(sent).toHaveLength(2)
})

it('writes a row put twice before it was sent once, as last put, after the rows put since', async () => {
  const { sent, writes } = driver()
  void writes.put([entry(9, 0)])
  const twice = [writes.put([entry(1, 1)]), writes.put([entry(2, 2)]), writes.put([entry(1, 3)])]
  sent[0]?.settle()
  await flush()
  const second = sent[1] as Sent
  expect(idsOf(second)).toEqual(['jrn_2', 'jrn_1'])
  // The seq column (third array: id, partner, row, …): request 3's row, not request 1's.
  expect(JSON.parse((second.params[2] as string[])[1] as string).seq).toBe('3')
  second.settle()
  await expect(Promise.all(twice)).resolves.toBeDefined()
})

it('fails every put of a statement that failed, and goes on with the next', async () => {
  const { sent, writes } = driver()
  const first = writes.put([entry(0, 0)])
  const waiting = [writes.put([entry(1, 1)]), writes.put([entry(2, 2)])]
  sent[0]?.settle(new Error('connection lost'))
  await expect(first).rejects.toThrow('connection lost')
  await flush()
  ;(sent[1] as Sent).settle(new Error('still lost'))
  for (const put of waiting) await expect(put).rejects.toThrow('still lost')
  // Nothing is left waiting: the next put goes at once, and lands.
  const later = writes.put([entry(3, 3)])
  await flush()
  expect(sent).toHaveLength(3)
  ;(sent[2] as Sent).settle()
  await expect(later).resolves.toBeUndefined()
})
