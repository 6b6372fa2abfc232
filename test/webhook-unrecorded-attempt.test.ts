import { describe, expect, it } from 'vitest'
import type { StateTx } from '../src/state/seam.js'
import type { DeliveryRow } from '../src/store/records.js'
import { type Call, receiverForTest, setup } from './helpers.js'
import { advance, createEndpoint, onlyDelivery, trigger } from './webhook-steps.js'

// An attempt whose result cannot be written (the transaction recording it fails: a connection
// to PostgreSQL lost, a full disk under a data file) must not lose the delivery: it stayed
// pending with no attempt recorded and was never tried again until a restart.

const T0 = Date.parse('2031-06-01T00:00:00.000Z')

/** A sandbox frozen at T0 whose transactions that record a first attempt fail `times` times. */
async function setupRefusingRecords(times: number) {
  const t = await setup({}, { frozenAt: T0 })
  const state = t.sandbox.services.state
  const transaction = state.transaction.bind(state)
  const refused = { count: 0 }
  state.transaction = <T>(fn: (tx: StateTx) => Promise<T>) =>
    transaction(async (tx) => {
      const out = await fn(tx)
      const recorded = out as Partial<DeliveryRow> | undefined
      if (recorded?.attempts?.length === 1 && refused.count < times) {
        refused.count++
        // Thrown after the writes: the transaction rolls back, as a failed commit does.
        throw new Error('connection lost while recording the attempt')
      }
      return out
    })
  return { ...t, refused }
}

async function flush(call: Call) {
  const res = await call('POST', '/_sandbox/webhooks/flush', { creds: null })
  expect(res.status, res.text).toBe(200)
}

describe('an attempt whose result could not be recorded', () => {
  it('is made again once its lease has run out on the clock, not left pending for ever', async () => {
    const { call, refused } = await setupRefusingRecords(1)
    const r = await receiverForTest()
    const webhookId = await createEndpoint(call, r.url)
    const eventId = await trigger(call)
    await flush(call)
    // Sent, answered 200, and the record of it rolled back: nothing says it was made.
    expect(refused.count).toBe(1)
    expect(r.requests).toHaveLength(1)
    expect(await onlyDelivery(call, webhookId)).toMatchObject({ status: 'pending', attempts: [] })

    // Not at once (a failure that lasts must not become a loop of requests)...
    await flush(call)
    expect(r.requests).toHaveLength(1)
    // ...but once a lease on it would have run out (timeout 5 s + 15 s), at that time of the
    // clock as a retry is; the advance answers after it ran.
    await advance(call, '1m')
    expect(r.requests).toHaveLength(2)
    expect(r.requests[1]?.headers['webhook-id']).toBe(eventId)
    expect(await onlyDelivery(call, webhookId)).toMatchObject({
      status: 'succeeded',
      attempts: [{ number: 1, status_code: 200, at: new Date(T0 + 20_000).toISOString() }],
      next_attempt_at: null,
    })
  })

  it('keeps coming back while recording fails, and the delivery stays pending meanwhile', async () => {
    const { call, refused } = await setupRefusingRecords(3)
    const r = await receiverForTest()
    const webhookId = await createEndpoint(call, r.url)
    await trigger(call)
    await flush(call)
    await advance(call, '1m')
    await advance(call, '1m')
    expect(refused.count).toBe(3)
    expect(r.requests).toHaveLength(3)
    expect(await onlyDelivery(call, webhookId)).toMatchObject({ status: 'pending', attempts: [] })
    await advance(call, '1m')
    expect(r.requests).toHaveLength(4)
    expect(await onlyDelivery(call, webhookId)).toMatchObject({ status: 'succeeded' })
  })
})
