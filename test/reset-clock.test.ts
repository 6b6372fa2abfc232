/**
 * A reset is whole (issue 40, item 8): POST /_sandbox/reset puts the sandbox clock back where
 * it started (the machine's time, or the start and freeze of the scenario the sandbox started
 * with) and every partner's clock back to what the fixtures say, on both engines; on
 * PostgreSQL every replica takes it. It keeps the request journal and sinks; rules go.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER, SECOND_PARTNER } from '../src/store/default-credentials.js'
import { type Call, setup, testEngine } from './helpers.js'
import { freshDatabaseUrl } from './postgres.js'

const admin = { creds: null }
const clockOf = async (call: Call, path = '/_sandbox/clock') => {
  const res = await call('GET', path, admin)
  expect(res.status, res.text).toBe(200)
  return res.json as { now: string; frozen: boolean; offset_ms: number }
}
const partnerClock = (id: string) => `/_sandbox/partners/${id}/clock`
const reset = async (call: Call) => {
  const res = await call('POST', '/_sandbox/reset', admin)
  expect(res.status, res.text).toBe(200)
}
/** Within a second of the machine's time: the clock follows it again. */
const closeToNow = (iso: string) => Math.abs(Date.parse(iso) - Date.now()) < 1_000

describe('POST /_sandbox/reset and the clocks', () => {
  it('puts an advanced sandbox clock back to the real time, running', async () => {
    const { call } = await setup()
    await call('POST', '/_sandbox/clock/advance', { ...admin, body: { by: '31m' } })
    expect((await clockOf(call)).offset_ms).toBeGreaterThanOrEqual(31 * 60_000)
    await reset(call)
    const clock = await clockOf(call)
    expect(clock).toMatchObject({ frozen: false, offset_ms: 0 })
    expect(closeToNow(clock.now)).toBe(true)
  })

  it('lets a frozen sandbox clock run again when the scenario starts it running', async () => {
    const { call } = await setup()
    await call('POST', '/_sandbox/clock/freeze', { ...admin, body: { at: '2031-05-01T00:00:00Z' } })
    await reset(call)
    const clock = await clockOf(call)
    expect(clock).toMatchObject({ frozen: false, offset_ms: 0 })
    expect(closeToNow(clock.now)).toBe(true)
  })

  it('puts every partner clock back as the fixtures say: following the sandbox clock', async () => {
    const { call } = await setup()
    await call('POST', `${partnerClock(DEFAULT_PARTNER.id)}/freeze`, admin)
    await call('POST', `${partnerClock(SECOND_PARTNER.id)}/advance`, {
      ...admin,
      body: { by: '2d' },
    })
    await call('POST', '/_sandbox/clock/advance', { ...admin, body: { by: '1h' } })
    await reset(call)
    for (const id of [DEFAULT_PARTNER.id, SECOND_PARTNER.id]) {
      const clock = await clockOf(call, partnerClock(id))
      expect(clock).toMatchObject({ frozen: false, offset_ms: 0 })
      expect(closeToNow(clock.now)).toBe(true)
    }
  })

  it('goes back to the start and freeze of the scenario the sandbox started with', async () => {
    const start = '2030-01-01T00:00:00.000Z'
    const { call } = await setup({
      scenario: { name: 'frozen-start', clock: { start, frozen: true } },
    })
    expect(await clockOf(call)).toMatchObject({ now: start, frozen: true })
    await call('POST', '/_sandbox/clock/advance', { ...admin, body: { by: '3h' } })
    await call('POST', '/_sandbox/clock/unfreeze', admin)
    await reset(call)
    expect(await clockOf(call)).toMatchObject({ now: start, frozen: true })
    const partner = await clockOf(call, partnerClock(DEFAULT_PARTNER.id))
    expect(partner).toMatchObject({ now: start, frozen: true, offset_ms: 0 })
  })

  it('keeps the request journal and sinks, and nothing of the partners or the rules', async () => {
    const { call } = await setup()
    const sink = await call('POST', '/_sandbox/sink/kept', { creds: null, body: { hello: 1 } })
    expect(sink.status, sink.text).toBeLessThan(300)
    const rule = await call('POST', '/_sandbox/rules', {
      ...admin,
      body: { match: { method: 'GET', path: '/api/v1/partner/usage' }, respond: { status: 503 } },
    })
    expect(rule.status, rule.text).toBe(201)
    const created = await call('POST', '/_sandbox/partners', { ...admin, body: { name: 'Gone' } })
    expect(created.status, created.text).toBe(201)
    await reset(call)
    expect((await call('GET', '/_sandbox/sink/kept', admin)).json.data).toHaveLength(1)
    // Rules are data, as the partners are: back to none.
    expect((await call('GET', '/_sandbox/rules', admin)).json.data).toEqual([])
    const journal = await call('GET', '/_sandbox/requests?path=/_sandbox/partners', admin)
    expect(journal.json.data.length).toBeGreaterThan(0)
    const partners = (await call('GET', '/_sandbox/partners?limit=500', admin)).json.data
    expect(partners.map((p: { name: string }) => p.name)).not.toContain('Gone')
  })
})

describe.runIf(testEngine === 'postgres')('a reset on PostgreSQL', () => {
  it('puts the clock back for every replica, and a replica started later takes it', async () => {
    const database = freshDatabaseUrl()
    const a = await setup({ database })
    const b = await setup({ database })
    await a.call('POST', '/_sandbox/clock/advance', { ...admin, body: { by: '31m' } })
    expect((await clockOf(b.call)).offset_ms).toBeGreaterThanOrEqual(31 * 60_000)
    await reset(a.call)
    await Promise.all([
      a.sandbox.services.clockRow.settled(),
      b.sandbox.services.clockRow.settled(),
    ])
    for (const t of [a, b])
      expect(await clockOf(t.call)).toMatchObject({ frozen: false, offset_ms: 0 })
    const c = await setup({ database })
    expect(await clockOf(c.call)).toMatchObject({ frozen: false, offset_ms: 0 })
    expect(await a.sandbox.services.state.get('clocks', 'sandbox')).toEqual({
      id: 'sandbox',
      offset_ms: 0,
      frozen_at: null,
    })
  })
})
