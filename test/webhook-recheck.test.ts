import { afterEach, describe, expect, it } from 'vitest'
import type { State } from '../src/state/seam.js'
import type { CollectionName, DeliveryRow } from '../src/store/records.js'
import { startReceiver, testSandbox } from './helpers.js'
import { advance, createEndpoint, onlyDelivery, trigger } from './webhook-steps.js'

// A replica that finds a delivery leased by another looks at it again once that lease has run
// out. When that read failed (PostgreSQL out of reach for a moment), the delivery was taken as
// gone and forgotten: it stayed pending and this replica never tried it again until a restart.

const T0 = Date.parse('2031-06-01T00:00:00.000Z')

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close()
})

/**
 * A sandbox frozen at T0 whose deliveries fall due a minute after their event (so a test can
 * lease one first), with leases of about a second (timeout 1 s and a 100 ms margin, not
 * 5 s + 15 s), and its warnings kept.
 */
async function setup() {
  const warnings: string[] = []
  const t = await testSandbox(
    {
      logLevel: 'warn',
      onLog: (line) => warnings.push(line),
      scenario: {
        name: 'leased-elsewhere',
        description: 'first attempt a minute after the event, 1 s timeout',
        webhooks: { retry_delays_ms: [60_000, 5_000, 30_000, 120_000], timeout_ms: 1_000 },
      },
    },
    { leaseMarginMs: 100 },
  )
  cleanup.push(() => t.sandbox.close())
  t.sandbox.clock.freeze(T0)
  return { ...t, warnings }
}

/** Makes the next read of delivery `id` fail, as a query on a lost connection does. */
function failNextRead(state: State, id: string) {
  const get = state.get.bind(state)
  const failed = { count: 0 }
  state.get = <K extends CollectionName>(collection: K, rowId: string) => {
    if (collection !== 'webhook_deliveries' || rowId !== id || failed.count > 0)
      return get(collection, rowId)
    failed.count++
    return Promise.reject(new Error('Connection terminated unexpectedly'))
  }
  return failed
}

describe('a delivery leased by another replica', () => {
  it('is still delivered, once, when reading it after the lease fails', async () => {
    const { sandbox, call, warnings } = await setup()
    const r = await startReceiver()
    cleanup.push(() => r.close())
    const webhookId = await createEndpoint(call, r.url)
    await trigger(call)
    const { id } = await onlyDelivery(call, webhookId)

    // Another replica holds the lease (as it does while attempting), and the read that
    // follows it fails once.
    const { state, dispatcher } = sandbox.services
    const lease = await state.claim(`delivery:${id}`, 60_000)
    expect(lease).toBeDefined()
    const failed = failNextRead(state, id)
    const attempted = new Promise<DeliveryRow>((resolve) => {
      const off = dispatcher.onAttempt((delivery) => {
        off()
        resolve(delivery)
      })
    })
    await advance(call, '1m')
    expect(r.requests).toHaveLength(0)

    // The other holder lets go without attempting it (it stopped): this replica delivers it.
    await lease?.release()
    await r.waitFor(1, 10_000)
    expect((await attempted).id).toBe(id)
    expect(failed.count).toBe(1)
    expect(warnings.some((line) => line.includes(id) && line.includes('looked at again'))).toBe(
      true,
    )
    expect(await onlyDelivery(call, webhookId)).toMatchObject({
      id,
      status: 'succeeded',
      attempts: [{ number: 1, status_code: 200 }],
      next_attempt_at: null,
    })

    // Exactly once: nothing more comes, whatever time passes.
    await advance(call, '1h')
    expect(r.requests).toHaveLength(1)
  })
})
