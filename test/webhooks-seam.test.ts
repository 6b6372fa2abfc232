import { describe, expect, it } from 'vitest'
import { type Call, createPartner, receiverForTest, setup } from './helpers.js'

// Webhooks over the state seam: deliveries come from committed transactions only, and the
// built-in sink's requests are state like any other.

/** Clocks frozen: retries wait for a flush. */
const FROZEN = { frozenAt: true } as const

const flush = (call: Call) => call('POST', '/_sandbox/webhooks/flush', { creds: null })

describe('webhooks over the state seam', () => {
  it('delivers an event only once its transaction commits, with the deliveries made in it', async () => {
    const { sandbox, call } = await setup({}, FROZEN)
    const receiver = await receiverForTest()
    const p = await createPartner(call, { name: 'Seam Hooks', webhook_url: receiver.url })
    const { state, events } = sandbox.services
    const object = { object: 'webhook_test', message: 'from a transaction' }

    await expect(
      state.transaction(async (tx) => {
        await events.record(tx, p.id, 'webhook.test', object)
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    await flush(call)
    expect(receiver.requests).toHaveLength(0)
    expect(await state.lookup('deliveries_by_partner', p.id)).toHaveLength(0)

    const event = await state.transaction(async (tx) =>
      events.record(tx, p.id, 'webhook.test', object),
    )
    const [delivery] = await state.lookup('deliveries_by_partner', p.id)
    expect(delivery).toMatchObject({ event_id: event.id, url: receiver.url, status: 'pending' })
    // Sent at once or by the flush: either way exactly once, and recorded before flush answers.
    await flush(call)
    expect(receiver.requests).toHaveLength(1)
    expect(receiver.requests[0]?.headers['webhook-id']).toBe(event.id)
    expect(await state.get('webhook_deliveries', delivery?.id as string)).toMatchObject({
      status: 'succeeded',
      attempts: [{ number: 1, status_code: 200 }],
    })
  })

  it("keeps a sink's requests as state, which a whole-sandbox reset leaves alone", async () => {
    const { sandbox, call } = await setup({}, FROZEN)
    await call('PUT', '/_sandbox/sink/seam/config', { creds: null, body: { fail_next: 1 } })
    const first = await call('POST', '/_sandbox/sink/seam', { creds: null, body: { n: 1 } })
    expect(first.status).toBe(500)
    const second = await call('POST', '/_sandbox/sink/seam', { creds: null, body: { n: 2 } })
    expect(second.status).toBe(200)
    const rows = await sandbox.services.state.lookup('sink_requests_by_sink', 'seam')
    expect(rows.map((r) => [r.number, r.body, r.responded_status])).toEqual([
      [1, '{"n":1}', 500],
      [2, '{"n":2}', 200],
    ])
    expect((await call('GET', '/_sandbox/sink/seam', { creds: null })).json.data).toHaveLength(2)

    expect((await call('POST', '/_sandbox/reset', { creds: null })).status).toBe(200)
    const after = await call('GET', '/_sandbox/sink/seam', { creds: null })
    expect(after.json.data.map((r: { body: string }) => r.body)).toEqual(['{"n":2}', '{"n":1}'])
    expect(await sandbox.services.sinks.size()).toBe(1)
  })
})
