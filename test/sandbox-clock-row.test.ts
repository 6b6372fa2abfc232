import { describe, expect, it } from 'vitest'
import { type ClockSetting, createClock } from '../src/clock.js'
import { SandboxClockRow } from '../src/domain/sandbox-clock-row.js'
import type { State } from '../src/state/seam.js'

/**
 * The sandbox clock's row (domain/sandbox-clock-row.ts), on a state whose reads and writes
 * answer when the test says: on PostgreSQL a read and this process's own write run on two
 * connections, and either may answer first.
 */
const T0 = Date.parse('2026-03-01T00:00:00Z')

function deferred<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** A state holding the clock's row; each write and each read after `open` waits to be let go. */
function heldState(row: ClockSetting) {
  let stored: ClockSetting = row
  const reads: ((value: ClockSetting) => void)[] = []
  const writes: (() => void)[] = []
  let opened = false
  const state = {
    async get() {
      if (!opened) {
        opened = true
        return stored
      }
      // The row as it stood when the read was sent.
      const asSent = stored
      const answer = deferred<ClockSetting>()
      reads.push(() => answer.resolve(asSent))
      return answer.promise
    },
    async transaction(fn: (tx: { put: (c: string, r: ClockSetting) => void }) => Promise<void>) {
      let next: ClockSetting | undefined
      await fn({ put: (_c, r) => (next = r) })
      const committed = deferred<void>()
      writes.push(() => {
        if (next) stored = next
        committed.resolve()
      })
      await committed.promise
    },
  }
  return {
    state: state as unknown as State,
    answerRead: () => (reads.shift() as (v: ClockSetting) => void)(stored),
    commitWrite: () => (writes.shift() as () => void)(),
    pending: () => ({ reads: reads.length, writes: writes.length }),
    /** Another process's write, committed. */
    storeElsewhere: (setting: ClockSetting) => {
      stored = setting
    },
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

/** A frozen clock over its row, advanced by a minute: the advance's write not committed yet. */
async function advancedAMinute() {
  const held = heldState({ offset_ms: 0, frozen_at: T0 })
  const clock = createClock({ start: T0, frozen: true })
  const row = await SandboxClockRow.open({ state: held.state, clock, logger: console })
  await clock.advance(60_000)
  await settle()
  return { held, clock, row }
}

describe('the sandbox clock row', () => {
  it("a read sent before this process's advance committed does not take the clock back", async () => {
    const { held, clock, row } = await advancedAMinute()
    // The read goes out while the advance's write has not committed...
    const refreshed = row.refresh()
    await settle()
    expect(held.pending()).toEqual({ reads: 1, writes: 1 })
    // ...the write commits, then the read answers with the row as it was when sent.
    held.commitWrite()
    await row.settled()
    held.answerRead()
    await refreshed
    expect(clock.now()).toBe(T0 + 60_000)
  })

  it('a read sent after the write committed takes what another process stored since', async () => {
    const { held, clock, row } = await advancedAMinute()
    held.commitWrite()
    await row.settled()
    held.storeElsewhere({ offset_ms: 0, frozen_at: T0 + 3_600_000 })
    const refreshed = row.refresh()
    await settle()
    held.answerRead()
    await refreshed
    expect(clock.now()).toBe(T0 + 3_600_000)
  })
})
