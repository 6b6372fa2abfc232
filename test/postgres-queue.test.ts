import fc from 'fast-check'
import { expect, it } from 'vitest'

// The bundle replaces postgres.js's queue (scripts/postgres-queue.mjs says why): the pool of
// every replica runs on it, so it must answer exactly as the original does, whatever the
// sequence of pushes, shifts and removals (the pool moves connections between queues with
// them; a connection's sent queries are shifted as answers arrive).

/** The interface postgres.js uses (plain JavaScript on both sides). */
type MakeQueue = (initial?: number[]) => {
  readonly length: number
  push(x: number): number
  shift(): number | undefined
  remove(x: number): number | null
}
const load = async (url: URL) => (await import(url.href)).default as MakeQueue
const Queue = await load(new URL('../scripts/postgres-queue.mjs', import.meta.url))
const original = await load(new URL('./queue.js', import.meta.resolve('postgres')))

const value = fc.integer({ min: 0, max: 20 })
const operation = fc.oneof(
  fc.record({ op: fc.constant('push' as const), value }),
  { weight: 3, arbitrary: fc.record({ op: fc.constant('shift' as const) }) },
  fc.record({ op: fc.constant('remove' as const), value }),
)

it('answers every sequence of operations as postgres.js’s own queue does', () => {
  fc.assert(
    // Started full at times, then shifted more than pushed: a long queue's dead part grows.
    fc.property(
      fc.nat(200),
      fc.array(operation, { minLength: 100, maxLength: 600 }),
      (full, operations) => {
        const initial = Array.from({ length: full }, (_, i) => i % 21)
        const ours = Queue(initial)
        const theirs = original(initial)
        for (const o of operations) {
          // Both pools shift only a queue that has something in it.
          if (o.op === 'shift' && theirs.length === 0) continue
          // Values are objects in the pool: removal finds one by identity, the first pushed.
          const a =
            o.op === 'push'
              ? ours.push(o.value)
              : o.op === 'shift'
                ? ours.shift()
                : ours.remove(o.value)
          const b =
            o.op === 'push'
              ? theirs.push(o.value)
              : o.op === 'shift'
                ? theirs.shift()
                : theirs.remove(o.value)
          expect(a).toBe(b)
          expect(ours.length).toBe(theirs.length)
        }
      },
    ),
    { numRuns: 500 },
  )
})
