/**
 * The sandbox clock. Every rule that depends on time (code expiry, sessions, settlement,
 * webhook retries, rate-limit windows) reads `now()` from here, so tests can freeze and
 * advance time instead of sleeping.
 */

export interface ClockState {
  now: string
  frozen: boolean
  /** Milliseconds the sandbox time runs ahead of the machine's time (real mode). */
  offset_ms: number
}

/**
 * Called after the clock moves, so due work (retries, settlements) can run. `by` is how far
 * it moved (negative for a jump back, 0 when it starts running again after a freeze).
 */
export type AdvanceListener = (now: number, by: number) => void | Promise<void>

export interface Clock {
  now(): number
  date(): Date
  iso(): string
  /** Stops time at `at` (default: the current sandbox time). */
  freeze(at?: number): void
  /** Lets time run again from the current sandbox time. */
  unfreeze(): void
  /** Moves the sandbox time forward by `ms` and runs the listeners. */
  advance(ms: number): Promise<void>
  /** Jumps to `at` (forward or backward) and runs the listeners. */
  set(at: number): Promise<void>
  onAdvance(listener: AdvanceListener): () => void
  state(): ClockState
}

/**
 * What the clock is set to, as the state keeps it (domain/sandbox-clock-row.ts): its offset
 * over the machine's time, or the instant it stands still at.
 */
export interface ClockSetting {
  offset_ms: number
  frozen_at: number | null
}

/** The sandbox's own clock: the public face plus what keeps its setting in the state. */
export interface SandboxClock extends Clock {
  setting(): ClockSetting
  /** Hears every change of the setting (a freeze, an unfreeze, a move). */
  onChange(listener: (setting: ClockSetting) => void): () => void
  /** Takes a setting another process stored, without running the advance listeners. */
  adopt(setting: ClockSetting): void
  /**
   * Goes back to the setting it was created with (a reset of the sandbox): the start and
   * freeze its options gave, else the machine's time, running. Nothing due runs: the state it
   * was due in is being replaced.
   */
  restart(): void
}

export interface ClockOptions {
  /** Start time (epoch ms or ISO string). Without it the clock follows the machine. */
  start?: number | string
  frozen?: boolean
  /** Source of machine time; injected by tests. */
  source?: () => number
}

export function createClock(options: ClockOptions = {}): SandboxClock {
  const source = options.source ?? Date.now
  const start = options.start === undefined ? undefined : toMillis(options.start)
  const initialOffset = () => (start === undefined ? 0 : start - source())
  const initialFrozenAt = () => (options.frozen ? (start ?? source()) : undefined)
  let offset = initialOffset()
  let frozenAt: number | undefined = initialFrozenAt()
  const listeners = new Set<AdvanceListener>()
  const changeListeners = new Set<(setting: ClockSetting) => void>()

  const now = () => frozenAt ?? source() + offset
  const setting = (): ClockSetting => ({ offset_ms: offset, frozen_at: frozenAt ?? null })
  const changed = () => {
    for (const listener of changeListeners) listener(setting())
  }

  const notify = async (by: number) => {
    const at = now()
    for (const listener of listeners) await listener(at, by)
  }

  /**
   * Moves the clock to `to(the time now)`, reading the machine's time once: read twice, a
   * millisecond passing between the reads took it off the exact amount (31 min advanced as
   * 1,859,999 ms).
   */
  const moveTo = async (to: (before: number) => number) => {
    const machine = source()
    const before = frozenAt ?? machine + offset
    const at = to(before)
    if (frozenAt !== undefined) frozenAt = at
    else offset = at - machine
    changed()
    await notify(at - before)
  }

  return {
    now,
    date: () => new Date(now()),
    iso: () => new Date(now()).toISOString(),
    freeze(at) {
      frozenAt = at ?? now()
      changed()
    },
    unfreeze() {
      if (frozenAt === undefined) return
      offset = frozenAt - source()
      frozenAt = undefined
      changed()
      // Work that waited for the frozen clock (webhook retries) re-arms its real-time timers.
      void notify(0)
    },
    advance: (ms) => moveTo((before) => before + ms),
    set: (at) => moveTo(() => at),
    onAdvance(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    setting,
    onChange(listener) {
      changeListeners.add(listener)
      return () => changeListeners.delete(listener)
    },
    adopt(next) {
      offset = next.offset_ms
      frozenAt = next.frozen_at ?? undefined
    },
    restart() {
      offset = initialOffset()
      frozenAt = initialFrozenAt()
      changed()
    },
    state: () => ({
      now: new Date(now()).toISOString(),
      frozen: frozenAt !== undefined,
      offset_ms: frozenAt === undefined ? offset : frozenAt - source(),
    }),
  }
}

export function toMillis(value: number | string): number {
  if (typeof value === 'number') return value
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) throw new Error(`not a valid time: ${value}`)
  return ms
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** Parses a duration such as `90s`, `10m`, `1h30m`, `2d` or a number of milliseconds. */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') return value
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)]
  const consumed = parts.map((p) => p[0]).join('')
  if (parts.length === 0 || consumed !== trimmed) {
    throw new Error(`not a duration: "${value}" (use e.g. 500ms, 30s, 10m, 1h30m, 2d)`)
  }
  return parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] as string] as number), 0)
}
