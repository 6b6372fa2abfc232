import { describe, expect, it } from 'vitest'
import { OrderedIds } from '../src/store/ordered-ids.js'

/** The per-key structure behind every list's page and cursor (src/store/ordered-ids.ts). */

describe('OrderedIds', () => {
  it('walks both ways, and from just after any id', () => {
    const ids = new OrderedIds(false)
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id)
    expect([...ids.walk()]).toEqual(['a', 'b', 'c', 'd'])
    expect([...ids.walk(true)]).toEqual(['d', 'c', 'b', 'a'])
    expect([...ids.walk(true, 'c')]).toEqual(['b', 'a'])
    expect([...ids.walk(false, 'b')]).toEqual(['c', 'd'])
    expect([...ids.walk(true, 'zz')]).toEqual([])
    expect(ids.has('c')).toBe(true)
  })

  it('keeps time order when a row is dated before the last (a clock moved back), ties as added', () => {
    const ids = new OrderedIds(true)
    ids.add('t1', '2026-01-01T10')
    ids.add('t2', '2026-01-01T12')
    ids.add('t3', '2026-01-01T11')
    ids.add('t4', '2026-01-01T11')
    ids.add('t5', '2026-01-01T09')
    expect([...ids.walk()]).toEqual(['t5', 't1', 't3', 't4', 't2'])
    expect([...ids.walk(true, 't4', '2026-01-01T11')]).toEqual(['t3', 't1', 't5'])
    ids.delete('t3', '2026-01-01T11')
    expect([...ids.walk(true)]).toEqual(['t2', 't4', 't1', 't5'])
    expect(ids.first()).toBe('t5')
  })

  it('stays correct while rows go during a walk, through compactions', () => {
    const ids = new OrderedIds(false)
    for (let i = 0; i < 1_000; i++) ids.add(`r${i}`)
    const seen: string[] = []
    for (const id of ids.walk()) {
      seen.push(id)
      // Remove this one and the next: the walk must skip the next, whatever compacts.
      ids.delete(id)
      const next = `r${Number(id.slice(1)) + 1}`
      ids.delete(next)
    }
    expect(seen).toEqual(Array.from({ length: 500 }, (_, i) => `r${2 * i}`))
    expect(ids.size).toBe(0)
    ids.add('again')
    expect([...ids.walk(true)]).toEqual(['again'])
  })

  it('a walk under way reads on as it began when a row is put behind it, no id twice', () => {
    const ids = new OrderedIds(true)
    const order = Array.from({ length: 10 }, (_, i) => `r${i}`)
    for (const [i, id] of order.entries()) ids.add(id, String(i * 10).padStart(4, '0'))
    const walk = ids.walk()
    const seen = [walk.next().value, walk.next().value, walk.next().value]
    // Dated between r0 and r1: its place is behind the walk.
    ids.add('late', '0005')
    seen.push(...walk)
    expect(seen).toEqual(order)
    // Once no walk is under way, a row put in the middle (in place) is read in its place.
    ids.add('later', '0015')
    expect([...ids.walk()]).toEqual(['r0', 'late', 'r1', 'later', ...order.slice(2)])
    expect([...ids.walk(true, 'r2', '0020')]).toEqual(['later', 'r1', 'late', 'r0'])
  })

  it('sorts after a bulk fill, stable for ties', () => {
    const ids = new OrderedIds(true)
    // A fill adds in stored order without looking; sort() puts time order back.
    ids.add('a', '3')
    ids.add('b', '1')
    ids.add('c', '3')
    ids.add('d', '2')
    ids.sort()
    expect([...ids.walk()]).toEqual(['b', 'd', 'a', 'c'])
  })

  it('agrees with a plain sorted list over 20,000 random adds and removals', () => {
    let seed = 20261124
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const ids = new OrderedIds(true)
    // The model: [id, order value, serial], sorted by value then by serial (ties as added).
    let model: [string, string, number][] = []
    let clock = 1_000
    for (let step = 0; step < 20_000; step++) {
      if (model.length > 0 && random(3) === 0) {
        // Mostly the oldest, as retention removes; sometimes any.
        const victim = random(4) === 0 ? random(model.length) : 0
        const [id, value] = model[victim] as [string, string, number]
        ids.delete(id, value)
        model.splice(victim, 1)
      } else {
        clock += random(20) === 0 ? -random(50) : random(3)
        const value = String(clock).padStart(8, '0')
        ids.add(`id${step}`, value)
        model.push([`id${step}`, value, step])
        model = model.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] - b[2]))
      }
      if (step % 997 === 0 || step === 19_999) {
        const order = model.map((m) => m[0])
        expect([...ids.walk()]).toEqual(order)
        expect([...ids.walk(true)]).toEqual([...order].reverse())
        expect(ids.first()).toBe(order[0])
        const cut = model[random(model.length)]
        if (cut !== undefined)
          expect([...ids.walk(true, cut[0], cut[1])]).toEqual(
            order.slice(0, order.indexOf(cut[0])).reverse(),
          )
      }
    }
  })

  it('as a ring (the oldest goes as each new one comes) agrees with a plain list, walks and cursors included', () => {
    const ids = new OrderedIds(true)
    let model: [string, string][] = []
    const add = (id: string, value: string) => {
      ids.add(id, value)
      model.push([id, value])
      model = model.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    }
    const remove = (id: string) => {
      ids.delete(id, model.find((m) => m[0] === id)?.[1])
      model = model.filter((m) => m[0] !== id)
    }
    for (let i = 0; i < 50; i++) add(`s${i}`, String(i).padStart(8, '0'))
    // A walk begun now reads on through the compactions below, skipping what went.
    const early = ids.walk()
    expect(early.next().value).toBe('s0')
    for (let step = 50; step < 5_000; step++) {
      remove((model[0] as [string, string])[0])
      // Now and then one from the middle, or one dated before the newest (a clock moved back).
      if (step % 211 === 0) remove((model[Math.floor(model.length / 2)] as [string, string])[0])
      const value = String(step % 397 === 0 ? step - 5 : step).padStart(8, '0')
      add(`s${step}`, value)
      if (step % 251 === 0 || step === 4_999) {
        const order = model.map((m) => m[0])
        expect([...ids.walk()]).toEqual(order)
        expect([...ids.walk(true)]).toEqual([...order].reverse())
        expect(ids.first()).toBe(order[0])
        const [cut, value] = model[Math.floor(model.length / 3)] as [string, string]
        expect([...ids.walk(false, cut, value)]).toEqual(order.slice(order.indexOf(cut) + 1))
        expect([...ids.walk(true, cut, value)]).toEqual(
          order.slice(0, order.indexOf(cut)).reverse(),
        )
        expect(ids.size).toBe(order.length)
      }
    }
    // Every id the early walk began with is gone: it gives nothing more, and none of the new.
    expect([...early]).toEqual([])
  })
  it('without order values, or all of one value (a frozen clock), agrees with a plain list as ids go from anywhere', () => {
    for (const sorted of [false, true]) {
      let seed = 20261201
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31
        return seed % n
      }
      const ids = new OrderedIds(sorted)
      const model: string[] = []
      for (let step = 0; step < 6_000; step++) {
        const roll = random(10)
        if (model.length > 0 && roll < 4) {
          // From the front, the back or anywhere: the last ones make finding a place costly
          // enough that the list keeps a map of places from then on, and stays right.
          const victim = roll === 0 ? random(model.length) : roll === 1 ? model.length - 1 : 0
          const id = model[victim] as string
          ids.delete(id, '2026-12-01T00:00:00.000Z')
          model.splice(victim, 1)
        } else {
          ids.add(`id${step}`, '2026-12-01T00:00:00.000Z')
          model.push(`id${step}`)
        }
        if (step % 499 === 0) {
          expect([...ids.walk()]).toEqual(model)
          expect([...ids.walk(true)]).toEqual([...model].reverse())
          expect(ids.size).toBe(model.length)
          const cut = model[random(model.length)]
          if (cut !== undefined) {
            expect(ids.has(cut, '2026-12-01T00:00:00.000Z')).toBe(true)
            expect([...ids.walk(false, cut, '2026-12-01T00:00:00.000Z')]).toEqual(
              model.slice(model.indexOf(cut) + 1),
            )
          }
          expect(ids.has('gone', '2026-12-01T00:00:00.000Z')).toBe(false)
        }
      }
    }
  })
})
