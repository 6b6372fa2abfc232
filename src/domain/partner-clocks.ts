import type { Clock } from '../clock.js'
import { ApiError } from '../errors.js'
import type { State, StateTx } from '../state/seam.js'
import type { PartnerRow } from '../store/records.js'

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
 * Time is read synchronously on every request, so each partner's field is kept in memory too:
 * a copy of the stored rows, taken at start and from every commit and replace of the seam.
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
  /** Every partner's stored `clock` field (null: it follows the sandbox clock). */
  private readonly fields = new Map<string, ClockField | null>()

  private constructor(
    private readonly seam: State,
    /** The sandbox clock every partner clock runs over. */
    readonly sandbox: Clock,
  ) {
    // Registered before the sweeper and dispatcher listen, so frozen partners have moved
    // by the time their due work is looked at.
    sandbox.onAdvance((_now, by) => this.shiftFrozen(by))
    seam.onCommit((changes) => {
      for (const change of changes) {
        if (change.collection !== 'partners') continue
        if (change.row) this.fields.set(change.id, (change.row as PartnerRow).clock ?? null)
        else this.fields.delete(change.id)
      }
    })
    seam.onReplace(() => this.load())
  }

  /** The partner clocks over `state`, their copy read before the first request. */
  static async open(state: State, sandbox: Clock): Promise<PartnerClocks> {
    const clocks = new PartnerClocks(state, sandbox)
    await clocks.load()
    return clocks
  }

  private async load(): Promise<void> {
    const partners = await this.seam.all('partners')
    this.fields.clear()
    for (const p of partners) this.fields.set(p.id, p.clock ?? null)
  }

  /** The time of `partnerId` (the sandbox time for an unknown partner). */
  nowOf(partnerId: string): number {
    const clock = this.fields.get(partnerId)
    if (!clock) return this.sandbox.now()
    return clock.frozen_at ?? this.sandbox.now() + clock.offset_ms
  }

  forPartner(partnerId: string): PartnerClock {
    const now = () => this.nowOf(partnerId)
    return { now, date: () => new Date(now()), iso: () => new Date(now()).toISOString() }
  }

  /** Whether the partner's time runs on its own (neither it nor the sandbox is frozen). */
  isRunning(partnerId: string): boolean {
    const clock = this.fields.get(partnerId)
    return !this.sandbox.state().frozen && (clock?.frozen_at ?? null) === null
  }

  /** The partner's clock as the control plane shows it; 404 for an unknown partner. */
  state(partnerId: string): PartnerClockState {
    const clock = this.require(partnerId)
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
    let moved = false
    await this.write(partnerId, () => {
      const before = this.nowOf(partnerId)
      moved = at !== undefined && at !== before
      return { offset_ms: 0, frozen_at: at ?? before }
    })
    if (moved) await this.notify(partnerId)
  }

  /** Lets the partner's time run again from where it stands. */
  async unfreeze(partnerId: string): Promise<void> {
    const wrote = await this.write(partnerId, (clock) =>
      clock?.frozen_at === undefined || clock.frozen_at === null
        ? undefined
        : { offset_ms: clock.frozen_at - this.sandbox.now(), frozen_at: null },
    )
    // Webhook retries waiting on the frozen clock re-arm their real-time timers.
    if (wrote) await this.notify(partnerId)
  }

  /** Moves the partner forward by exactly `ms` (its offset, or its frozen instant) and runs its due work. */
  async advance(partnerId: string, ms: number): Promise<void> {
    await this.write(partnerId, (current) => {
      const clock = current ?? { offset_ms: 0, frozen_at: null }
      return clock.frozen_at === null
        ? { offset_ms: clock.offset_ms + ms, frozen_at: null }
        : { offset_ms: 0, frozen_at: clock.frozen_at + ms }
    })
    await this.notify(partnerId)
  }

  /** Moves the partner to `at` (forward or back) and runs its due work. */
  async set(partnerId: string, at: number): Promise<void> {
    await this.write(partnerId, (clock) =>
      clock?.frozen_at !== undefined && clock.frozen_at !== null
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
  private async shiftFrozen(by: number): Promise<void> {
    if (by === 0) return
    if (![...this.fields.values()].some((clock) => clock && clock.frozen_at !== null)) return
    await this.seam.transaction(async (tx) => {
      for (const p of await tx.all('partners')) {
        if (!p.clock || p.clock.frozen_at === null) continue
        tx.put('partners', { ...p, clock: { ...p.clock, frozen_at: p.clock.frozen_at + by } })
      }
    })
  }

  /**
   * One transaction over the partner row: `next` gets its stored clock field (undefined:
   * none) and answers the new one, or undefined to leave it. Whether it wrote.
   */
  private write(
    partnerId: string,
    next: (clock: ClockField | undefined) => ClockField | undefined,
  ): Promise<boolean> {
    return this.seam.transaction(async (tx: StateTx) => {
      const partner = await tx.get('partners', partnerId)
      if (!partner) throw notFound(partnerId)
      const clock = next(partner.clock)
      if (clock) tx.put('partners', { ...partner, clock })
      return clock !== undefined
    })
  }

  private async notify(partnerId: string): Promise<void> {
    const now = this.nowOf(partnerId)
    for (const listener of this.listeners) await listener(partnerId, now)
  }

  /** The partner's stored clock field (null: none); 404 for an unknown partner. */
  private require(partnerId: string): ClockField | null {
    const clock = this.fields.get(partnerId)
    if (clock === undefined) throw notFound(partnerId)
    return clock
  }
}

const notFound = (partnerId: string) =>
  new ApiError('not_found', `No partner with id ${partnerId}.`)
