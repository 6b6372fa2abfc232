import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { acme, type Call, northwind, setup, tempDirForTest } from './helpers.js'

const T0 = Date.parse('2030-01-01T00:00:00.000Z')

async function partnerIds(call: Call) {
  const list = await call('GET', '/_sandbox/partners', { creds: null })
  const byKey = (key: string) => list.json.data.find((p: { api_key: string }) => p.api_key === key)
  return { a: byKey(acme.key).id as string, b: byKey(northwind.key).id as string }
}

const clockOf = async (call: Call, id: string) =>
  (await call('GET', `/_sandbox/partners/${id}/clock`, { creds: null })).json

describe('a clock per partner (control routes)', () => {
  it('advances, freezes and unfreezes one partner while the other keeps the sandbox time', async () => {
    const { call } = await setup({}, { frozenAt: T0 })
    const { a, b } = await partnerIds(call)

    const advanced = await call('POST', `/_sandbox/partners/${a}/clock/advance`, {
      creds: null,
      body: { by: '11m' },
    })
    expect(advanced.status).toBe(200)
    expect(advanced.json).toEqual({
      partner_id: a,
      now: new Date(T0 + 660_000).toISOString(),
      frozen: true, // the sandbox clock is frozen, so every partner is
      offset_ms: 660_000,
    })
    expect(await clockOf(call, b)).toEqual({
      partner_id: b,
      now: new Date(T0).toISOString(),
      frozen: true,
      offset_ms: 0,
    })

    const to = await call('POST', `/_sandbox/partners/${b}/clock/advance`, {
      creds: null,
      body: { to: '2030-01-02T00:00:00Z' },
    })
    expect(to.json).toMatchObject({ now: '2030-01-02T00:00:00.000Z', offset_ms: 86_400_000 })
    expect((await clockOf(call, a)).offset_ms).toBe(660_000)

    const frozen = await call('POST', `/_sandbox/partners/${a}/clock/freeze`, {
      creds: null,
      body: { at: '2030-03-01T00:00:00Z' },
    })
    expect(frozen.json).toMatchObject({ now: '2030-03-01T00:00:00.000Z', frozen: true })
    const unfrozen = await call('POST', `/_sandbox/partners/${a}/clock/unfreeze`, { creds: null })
    expect(unfrozen.json).toMatchObject({ now: '2030-03-01T00:00:00.000Z' })
  })

  it('keeps a frozen partner frozen while the sandbox clock runs, and a running one running', async () => {
    const { call } = await setup()
    const { a, b } = await partnerIds(call)
    const freeze = await call('POST', `/_sandbox/partners/${a}/clock/freeze`, { creds: null })
    expect(freeze.json.frozen).toBe(true)
    const held = freeze.json.now
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect((await clockOf(call, a)).now).toBe(held)
    const running = await clockOf(call, b)
    expect(running.frozen).toBe(false)
    expect(Date.parse(running.now)).toBeGreaterThan(Date.parse(held))
  })

  it('moves every partner, frozen ones included, when the sandbox clock moves', async () => {
    const { call } = await setup({}, { frozenAt: T0 })
    const { a, b } = await partnerIds(call)
    await call('POST', `/_sandbox/partners/${a}/clock/freeze`, {
      creds: null,
      body: { at: '2030-06-01T00:00:00Z' },
    })
    await call('POST', `/_sandbox/partners/${b}/clock/advance`, { creds: null, body: { by: '1h' } })
    await call('POST', `/_sandbox/partners/${a}/clock/unfreeze`, { creds: null })
    await call('POST', `/_sandbox/partners/${a}/clock/freeze`, { creds: null })

    const global = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '2d' },
    })
    expect(global.status).toBe(200)
    expect((await clockOf(call, a)).now).toBe('2030-06-03T00:00:00.000Z')
    expect((await clockOf(call, b)).now).toBe('2030-01-03T01:00:00.000Z')
  })

  it('keeps each partner clock across a restart with a data file, without a clean shutdown', async () => {
    const dir = tempDirForTest('partner-clock-')
    const data = join(dir, 'sandbox.json')
    const first = await setup({ data }, { frozenAt: T0 })
    const { a, b } = await partnerIds(first.call)
    await first.call('POST', `/_sandbox/partners/${a}/clock/advance`, {
      creds: null,
      body: { by: '90m' },
    })
    await first.call('POST', `/_sandbox/partners/${b}/clock/freeze`, {
      creds: null,
      body: { at: '2031-01-01T00:00:00Z' },
    })
    // A second process on the same file, the first one never closed: what kill -9 leaves.
    const second = await setup({ data }, { frozenAt: T0 })
    expect((await clockOf(second.call, a)).offset_ms).toBe(90 * 60_000)
    expect(await clockOf(second.call, b)).toMatchObject({
      now: '2031-01-01T00:00:00.000Z',
      frozen: true,
    })
  })

  it('answers 404 for an unknown partner and 400 for a bad id or body, changing nothing', async () => {
    const { call } = await setup({}, { frozenAt: T0 })
    const { a } = await partnerIds(call)
    const missing = '00000000-0000-4000-8000-000000000000'
    for (const [method, path, body] of [
      ['GET', `/_sandbox/partners/${missing}/clock`, undefined],
      ['POST', `/_sandbox/partners/${missing}/clock/advance`, { by: '1m' }],
      ['POST', `/_sandbox/partners/${missing}/clock/freeze`, {}],
      ['POST', `/_sandbox/partners/${missing}/clock/unfreeze`, undefined],
    ] as const) {
      const res = await call(method, path, { creds: null, body })
      expect(res.status, path).toBe(404)
      expect(res.json).toMatchObject({ success: false, error: { code: 'not_found' } })
    }
    const badId = await call('GET', '/_sandbox/partners/nope/clock', { creds: null })
    expect(badId.status).toBe(400)
    expect(badId.json.error.details[0].field).toBe('id')
    for (const body of [{ by: 'soon' }, { by: '1m', to: '2030-01-01T00:00:00Z' }, { at: 1 }, {}]) {
      const res = await call('POST', `/_sandbox/partners/${a}/clock/advance`, {
        creds: null,
        body,
      })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.json.error.code).toBe('validation_error')
    }
    const badFreeze = await call('POST', `/_sandbox/partners/${a}/clock/freeze`, {
      creds: null,
      body: { at: 'tomorrow' },
    })
    expect(badFreeze.status).toBe(400)
    expect(badFreeze.json.error.details[0].field).toBe('at')
    expect((await clockOf(call, a)).offset_ms).toBe(0)
  })
})
