import type { Clock } from '../clock.js'
import { ApiError } from '../errors.js'
import type { PartnerRow } from '../store/records.js'
import type { Store } from '../store/store.js'

/**
 * One clock per partner, like Stripe's test clocks per tenant, so parallel test workers (one
 * partner each) move time without disturbing each other. A partner's time is the sandbox
 * time plus its own offset, or a fixed instant while the partner is frozen:
 *
 * - advancing or freezing a partner changes only that partner's time and runs only its due
 *   work (the listeners get the partner's id);
 * - the sandbox clock moves everyone: a global advance or jump by N moves every partner by N,
 *   frozen partners included (they stay frozen, N later); a global freeze stops every partner.
 *
 * The state lives on the partner row (`clock`), so it is journaled with the partner and
 * survives a restart with a data file. A partner without that field follows the sandbox clock.
 */

/** A read-only view of one partner's time; the `Clock`-like face partner-scoped code reads. */
export interface PartnerClock {
  now(): number
  date(): Date
  iso(): string
}

export interface PartnerClockState {
  partner_id: string
  now: string
  frozen: boolean
  /** The partner's time minus the sandbox time. */
  offset_ms: number
}

/** Called after one partner's clock moved, so that partner's due work can run. */
export type PartnerAdvanceListener = (partnerId: string, now: number) => void | Promise<void>

type ClockField = NonNullable<PartnerRow['clock']>

export class PartnerClocks {
  private readonly listeners = new Set<PartnerAdvanceListener>()

  constructor(
    private readonly store: Store,
    /** The sandbox clock every partner clock runs over. */
    readonly sandbox: Clock,
  ) {
    // Registered before the sweeper and dispatcher listen, so frozen partners have moved
    // by the time their due work is looked at.
    sandbox.onAdvance((_now, by) => this.shiftFrozen(by))
  }

  /** The time of `partnerId` (the sandbox time for an unknown partner). */
  nowOf(partnerId: string): number {
    const clock = this.store.get('partners', partnerId)?.clock
    if (!clock) return this.sandbox.now()
    return clock.frozen_at ?? this.sandbox.now() + clock.offset_ms
  }

  forPartner(partnerId: string): PartnerClock {
    const now = () => this.nowOf(partnerId)
    return { now, date: () => new Date(now()), iso: () => new Date(now()).toISOString() }
  }

  /** Whether the partner's time runs on its own (neither it nor the sandbox is frozen). */
  isRunning(partnerId: string): boolean {
    const clock = this.store.get('partners', partnerId)?.clock
    return !this.sandbox.state().frozen && (clock?.frozen_at ?? null) === null
  }

  state(partnerId: string): PartnerClockState {
    const clock = this.require(partnerId).clock
    // One read of the sandbox time, so a running clock reports its offset exactly.
    const sandboxNow = this.sandbox.now()
    const now = clock ? (clock.frozen_at ?? sandboxNow + clock.offset_ms) : sandboxNow
    return {
      partner_id: partnerId,
      now: new Date(now).toISOString(),
      frozen: !this.isRunning(partnerId),
      offset_ms: now - sandboxNow,
    }
  }

  /** Stops the partner's time at `at` (default: its current time); due work runs if it moved. */
  async freeze(partnerId: string, at?: number): Promise<void> {
    const before = this.nowOf(partnerId)
    this.write(partnerId, { offset_ms: 0, frozen_at: at ?? before })
    if (at !== undefined && at !== before) await this.notify(partnerId)
  }

  /** Lets the partner's time run again from where it stands. */
  async unfreeze(partnerId: string): Promise<void> {
    const clock = this.require(partnerId).clock
    if (clock?.frozen_at === undefined || clock.frozen_at === null) return
    this.write(partnerId, { offset_ms: clock.frozen_at - this.sandbox.now(), frozen_at: null })
    // Webhook retries waiting on the frozen clock re-arm their real-time timers.
    await this.notify(partnerId)
  }

  /** Moves the partner forward by exactly `ms` (its offset, or its frozen instant) and runs its due work. */
  async advance(partnerId: string, ms: number): Promise<void> {
    const clock = this.require(partnerId).clock ?? { offset_ms: 0, frozen_at: null }
    this.write(
      partnerId,
      clock.frozen_at === null
        ? { offset_ms: clock.offset_ms + ms, frozen_at: null }
        : { offset_ms: 0, frozen_at: clock.frozen_at + ms },
    )
    await this.notify(partnerId)
  }

  /** Moves the partner to `at` (forward or back) and runs its due work. */
  async set(partnerId: string, at: number): Promise<void> {
    const clock = this.require(partnerId).clock
    const frozen = clock?.frozen_at !== undefined && clock.frozen_at !== null
    this.write(
      partnerId,
      frozen
        ? { offset_ms: 0, frozen_at: at }
        : { offset_ms: at - this.sandbox.now(), frozen_at: null },
    )
    await this.notify(partnerId)
  }

  onAdvance(listener: PartnerAdvanceListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The sandbox clock moved by `by`: frozen partners move with it. */
  private shiftFrozen(by: number): void {
    if (by === 0) return
    const frozen = this.store.all('partners').filter((p) => p.clock && p.clock.frozen_at !== null)
    if (frozen.length === 0) return
    this.store.batch((w) => {
      for (const p of frozen) {
        const clock = p.clock as ClockField
        w.put('partners', {
          ...p,
          clock: { ...clock, frozen_at: (clock.frozen_at as number) + by },
        })
      }
    })
  }

  private write(partnerId: string, clock: ClockField): void {
    const partner = this.require(partnerId)
    this.store.put('partners', { ...partner, clock })
  }

  private async notify(partnerId: string): Promise<void> {
    const now = this.nowOf(partnerId)
    for (const listener of this.listeners) await listener(partnerId, now)
  }

  private require(partnerId: string): PartnerRow {
    const partner = this.store.get('partners', partnerId)
    if (!partner) throw new ApiError('not_found', `No partner with id ${partnerId}.`)
    return partner
  }
}
