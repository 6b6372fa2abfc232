import { describe, expect, it } from 'vitest'
import { createClock } from '../src/clock.js'
import { Sweeper } from '../src/domain/sweeper.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { setup, type TestSandbox } from './helpers.js'

/**
 * The platform's state goes through the seam (issue 20): the sandbox clock's setting and each
 * partner's clock are rows a second process could write, what stays in memory follows the
 * commits, and a snapshot never holds ephemeral state.
 */

const T0 = Date.parse('2030-01-01T00:00:00.000Z')
/** Waits for the writes of the sandbox clock's row asked for so far (one transaction each). */
const settled = (t: TestSandbox) => t.sandbox.services.clockRow.settled()

describe('the sandbox clock through the seam', () => {
  // Issue 40 item 8 turned this test's second half around: a reset used to leave the time as
  // it stood; it now puts the clock back where it started (test/reset-clock.test.ts).
  it('keeps its setting as a row, and a reset puts the time back where it started', async () => {
    const t = await setup({}, { frozenAt: T0 })
    await settled(t)
    expect(await t.sandbox.services.state.get('clocks', 'sandbox')).toEqual({
      id: 'sandbox',
      offset_ms: 0,
      frozen_at: T0,
    })
    await t.call('POST', '/_sandbox/clock/advance', { creds: null, body: { by: '1h' } })
    expect((await t.sandbox.services.state.get('clocks', 'sandbox'))?.frozen_at).toBe(
      T0 + 3_600_000,
    )

    expect((await t.call('POST', '/_sandbox/reset', { creds: null })).status).toBe(200)
    const clock = (await t.call('GET', '/_sandbox/clock', { creds: null })).json
    expect(clock).toMatchObject({ frozen: false, offset_ms: 0 })
    await settled(t)
    expect(await t.sandbox.services.state.get('clocks', 'sandbox')).toEqual({
      id: 'sandbox',
      offset_ms: 0,
      frozen_at: null,
    })
  })

  it('takes a setting another process stored', async () => {
    const t = await setup({}, { frozenAt: T0 })
    await settled(t)
    const later = T0 + 86_400_000
    await t.sandbox.services.state.transaction(async (tx) =>
      tx.put('clocks', { id: 'sandbox', offset_ms: 0, frozen_at: later }),
    )
    // No notice: the next request reads the row first, and the clock has taken it.
    const clock = (await t.call('GET', '/_sandbox/clock', { creds: null })).json
    expect(clock).toMatchObject({ now: new Date(later).toISOString(), frozen: true })
    expect(t.sandbox.clock.now()).toBe(later)
  })

  it('is never in a snapshot, and a snapshot naming it is refused without a change', async () => {
    const t = await setup({}, { frozenAt: T0 })
    const snapshot = (await t.call('GET', '/_sandbox/snapshot', { creds: null })).json
    expect(Object.keys(snapshot.collections)).not.toContain('clocks')
    expect(Object.keys(snapshot.collections)).toContain('partners')

    const forged = {
      ...snapshot,
      collections: {
        ...snapshot.collections,
        clocks: { sandbox: { id: 'sandbox', offset_ms: 0, frozen_at: 0 } },
      },
    }
    const res = await t.call('POST', '/_sandbox/snapshot', { creds: null, body: forged })
    expect(res.status).toBe(400)
    expect(res.json.error.details).toContainEqual(
      expect.objectContaining({ field: 'collections.clocks' }),
    )
    expect(t.sandbox.clock.now()).toBe(T0)
  })
})

describe('partner clocks through the seam', () => {
  it('read the time any writer stored on the partner row, and a restore brings it back', async () => {
    const t = await setup({}, { frozenAt: T0 })
    const id = DEFAULT_PARTNER.id
    const saved = (await t.call('GET', '/_sandbox/snapshot', { creds: null })).json

    const frozenAt = T0 - 7 * 86_400_000
    await t.sandbox.services.state.transaction(async (tx) => {
      const row = await tx.get('partners', id)
      if (row) tx.put('partners', { ...row, clock: { offset_ms: 0, frozen_at: frozenAt } })
    })
    const clockOf = async () =>
      (await t.call('GET', `/_sandbox/partners/${id}/clock`, { creds: null })).json
    expect(await clockOf()).toMatchObject({ now: new Date(frozenAt).toISOString(), frozen: true })

    expect((await t.call('POST', '/_sandbox/snapshot', { creds: null, body: saved })).status).toBe(
      200,
    )
    expect(await clockOf()).toMatchObject({ now: new Date(T0).toISOString(), offset_ms: 0 })
  })
})

describe('loaded scenarios through the seam', () => {
  it('are in force once their row is committed, by whichever writer', async () => {
    const t = await setup({}, { frozenAt: T0 })
    const document = { name: 'from-elsewhere', description: 'Loaded by another process.' }
    await t.sandbox.services.state.transaction(async (tx) =>
      tx.put('scenarios', { id: document.name, document, loaded_at: new Date(T0).toISOString() }),
    )
    const list = await t.call('GET', '/_sandbox/scenarios', { creds: null })
    expect(list.json.data).toContainEqual({ ...document, bundled: false })
    const set = await t.call('PUT', '/_sandbox/scenario', {
      creds: null,
      body: { name: 'from-elsewhere' },
    })
    expect(set.json).toEqual({ default: 'from-elsewhere' })
  })
})

describe('the sweeper', () => {
  it('runs its rules in the order it was given them, one run after the other', async () => {
    const t = await setup({}, { frozenAt: T0 })
    const seen: string[] = []
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const errors: string[] = []
    const sweeper = new Sweeper({
      clock: createClock({ frozen: true }),
      clocks: t.sandbox.services.clocks,
      logger: { error: (message: string) => errors.push(message), warn: () => {} },
      tasks: [
        async (scope) => {
          seen.push(`first ${scope.partnerId ?? 'all'}`)
          await gate
        },
        () => {
          throw new Error('a broken rule')
        },
        (scope) => {
          seen.push(`last ${scope.partnerId ?? 'all'}`)
        },
      ],
    })
    try {
      const one = sweeper.run()
      const two = sweeper.run('p1')
      await Promise.resolve()
      expect(seen).toEqual(['first all'])
      release()
      await Promise.all([one, two])
      expect(seen).toEqual(['first all', 'last all', 'first p1', 'last p1'])
      expect(errors).toHaveLength(2)
      expect(errors[0]).toContain('a broken rule')
    } finally {
      sweeper.stop()
    }
  })
})
