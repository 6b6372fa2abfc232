import { describe, expect, it } from 'vitest'
import { specNames } from '../src/domain/production-names.js'
import { endpointKey } from '../src/state/indexes.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { recordAttempt } from '../src/webhooks/attempt-result.js'
import { receiverForTest, setup } from './helpers.js'
import { advance, createEndpoint, onlyDelivery, trigger } from './webhook-steps.js'

// The delivery rows are the webhook schedule, shared by every process on the state. A process
// that takes an attempt and dies before recording it leaves the row taken: it falls due again
// once the attempt's timeout and a margin (15 s) have passed on the partner's clock, and
// another process makes the attempt. The first record of an attempt stands.

const T0 = Date.parse('2031-06-01T00:00:00.000Z')
const at = (ms: number) => new Date(ms).toISOString()

/** Frozen at T0; the first attempt a minute after the event, with a 1 s timeout. */
async function takenElsewhere() {
  const t = await setup(
    {
      scenario: {
        name: 'taken-elsewhere',
        description: 'first attempt a minute after the event, 1 s timeout',
        webhooks: { retry_delays_ms: [60_000, 5_000, 30_000, 120_000], timeout_ms: 1_000 },
      },
    },
    { frozenAt: T0 },
  )
  return { ...t, r: await receiverForTest() }
}

describe('an attempt taken by a process that died before recording it', () => {
  it('is made again, once, when its timeout and margin have passed; a late record is ignored', async () => {
    const { sandbox, call, r } = await takenElsewhere()
    const webhookId = await createEndpoint(call, r.url)
    const eventId = await trigger(call)
    const { id } = await onlyDelivery(call, webhookId)
    const { state, clocks, random, scenarios } = sandbox.services

    // Another process takes it at its due time (T0 + 1 m), as the dispatcher does, then dies.
    const due = at(T0 + 60_000)
    const taken = await state.transaction(async (tx) => {
      const key = endpointKey(DEFAULT_PARTNER.id, webhookId)
      const rows = await tx.takeDue('deliveries_due_by_endpoint', key, due, 10)
      for (const row of rows)
        tx.put('webhook_deliveries', {
          ...row,
          next_attempt_at: at(T0 + 60_000 + 1_000 + 15_000),
          attempt_due_at: row.next_attempt_at,
        })
      return rows.map((row) => row.id)
    })
    expect(taken).toEqual([id])

    // Due, but under way elsewhere: not sent while its timeout and margin run.
    await advance(call, '1m')
    expect(r.requests).toHaveLength(0)
    expect(await onlyDelivery(call, webhookId)).toMatchObject({
      status: 'pending',
      attempts: [],
      next_attempt_at: due,
    })
    await advance(call, '15s')
    expect(r.requests).toHaveLength(0)

    // Past them: this process makes the attempt, once.
    await advance(call, '1s')
    expect(r.requests).toHaveLength(1)
    expect(r.requests[0]?.headers['webhook-id']).toBe(eventId)
    expect(await onlyDelivery(call, webhookId)).toMatchObject({
      status: 'succeeded',
      attempts: [{ number: 1, status_code: 200, at: at(T0 + 76_000) }],
      next_attempt_at: null,
    })

    // The dead process's record of its attempt 1 comes late: the first record stands.
    const late = await state.transaction((tx) =>
      recordAttempt({ clocks, random, scenarios, names: specNames }, tx, id, {
        number: 1,
        at: due,
        result: { status: null, durationMs: 1_000, error: 'timed out' },
        retryAt: T0 + 65_000,
      }),
    )
    expect(late).toBeUndefined()
    await advance(call, '1h')
    expect(r.requests).toHaveLength(1)
    expect((await onlyDelivery(call, webhookId)).attempts).toHaveLength(1)
  })
})
