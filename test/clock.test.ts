import { describe, expect, it } from 'vitest'
import { createClock, parseDuration } from '../src/clock.js'

describe('the sandbox clock', () => {
  it('follows the injected machine time with an offset, and freezes', () => {
    let machine = 1_000_000
    const clock = createClock({ source: () => machine, start: 5_000_000 })
    expect(clock.now()).toBe(5_000_000)
    machine += 250
    expect(clock.now()).toBe(5_000_250)
    clock.freeze()
    machine += 10_000
    expect(clock.now()).toBe(5_000_250)
    clock.unfreeze()
    machine += 5
    expect(clock.now()).toBe(5_000_255)
  })

  it('advances a running clock by exactly the amount asked, however the machine time ticks', async () => {
    // A machine clock that moves a millisecond at each reading (a loaded machine).
    let machine = 1_000_000
    const clock = createClock({ source: () => machine++ })
    await clock.advance(31 * 60_000)
    expect(clock.setting().offset_ms).toBe(31 * 60_000)
    await clock.advance(1_000)
    expect(clock.setting().offset_ms).toBe(31 * 60_000 + 1_000)
  })

  it('runs advance listeners with the new time, in registration order', async () => {
    const clock = createClock({ start: 0, frozen: true })
    const seen: string[] = []
    clock.onAdvance((now) => {
      seen.push(`a${now}`)
    })
    const off = clock.onAdvance(async (now) => {
      seen.push(`b${now}`)
    })
    await clock.advance(1000)
    off()
    await clock.advance(500)
    expect(seen).toEqual(['a1000', 'b1000', 'a1500'])
  })

  it('parses durations and refuses nonsense', () => {
    expect(parseDuration('90s')).toBe(90_000)
    expect(parseDuration('1h30m')).toBe(5_400_000)
    expect(parseDuration('2d')).toBe(172_800_000)
    expect(parseDuration('250')).toBe(250)
    expect(parseDuration(42)).toBe(42)
    expect(() => parseDuration('soon')).toThrow(/not a duration/)
    expect(() => parseDuration('5 minutes')).toThrow()
  })
})
