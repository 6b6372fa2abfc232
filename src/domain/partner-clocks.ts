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
 * Time is read synchronously, so each partner's field is held here as last read, and taken
 * again from the row before anything reads the time: the API gate takes it from the partner
 * row it read for the request (`take`), the control plane and the public pages read the rows
 * first (`refresh` the named partner's; `refreshAll` those of every partner with a clock of its
 * own, found by an index), and so does the sweeper before each run. No other process needs to
 * say that a clock changed: the next request reads it.
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
  /**
   * Each partner's stored `clock` field as last read (null: it follows the sandbox clock),
   * taken again from its row before the time is read (see above).
   */
  private readonly fields = new Map<string, ClockField | null>()

  private constructor(
    private readonly seam: State,
    /** The sandbox clock every partner clock runs over. */
    readonly sandbox: Clock,
  ) {
    // Registered before the sweeper and dispatcher listen, so frozen partners have moved
    // by the time their due work is looked at.
    sandbox.onAdvance((_now, by) => this.shiftFrozen(by))
  }

  /** The partner clocks over `state`, every partner's field read before the first request. */
  static async open(state: State, sandbox: Clock): Promise<PartnerClocks> {
    const clocks = new PartnerClocks(state, sandbox)
    await clocks.refreshAll()
    return clocks
  }

  /** Takes the partner's field from its row, read in the request about to read its time. */
  take(partner: Pick<PartnerRow, 'id' | 'clock'>): void {
    this.fields.set(partner.id, partner.clock ?? null)
  }

  /** Reads one partner's row and takes its field (forgets a partner that is gone). */
  async refresh(partnerId: string): Promise<void> {
    const partner = await this.seam.get('partners', partnerId)
    if (partner) this.take(partner)
    else this.fields.delete(partnerId)
  }

  /**
   * Reads the rows of the partners whose time is their own and takes their fields; every
   * other partner follows the sandbox clock (background work over every partner). The cost is
   * those few rows, however many partners there are.
   */
  async refreshAll(): Promise<void> {
    const partners = await this.seam.lookup('partners_with_own_clock', 'own')
    this.fields.clear()
    for (const p of partners) this.take(p)
  }

  /** The time of `partnerId` (the sandbox time for an unknown partner). */
  nowOf(partnerId: string): number {
    return this.timeOf(this.fields.get(partnerId))
  }

  /** The time a stored clock field stands at (none: the sandbox time). */
  private timeOf(clock: ClockField | null | undefined): number {
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

  /** The clock of a partner read in this request, as the control plane shows it. */
  state(partner: Pick<PartnerRow, 'id' | 'clock'>): PartnerClockState {
    this.take(partner)
    const clock = partner.clock
    // One read of the sandbox time, so a running clock reports its offset exactly.
    const sandboxNow = this.sandbox.now()
    const now = clock ? (clock.frozen_at ?? sandboxNow + clock.offset_ms) : sandboxNow
    return {
      partner_id: partner.id,
      now: new Date(now).toISOString(),
      frozen: !this.isRunning(partner.id),
      offset_ms: now - sandboxNow,
    }
  }

  /** Reads the partner's row and answers its clock; 404 for an unknown partner. */
  async read(partnerId: string): Promise<PartnerClockState> {
    const partner = await this.seam.get('partners', partnerId)
    if (!partner) throw notFound(partnerId)
    return this.state(partner)
  }

  /** Stops the partner's time at `at` (default: its current time); due work runs if it moved. */
  async freeze(partnerId: string, at?: number): Promise<PartnerClockState> {
    let moved = false
    const { partner } = await this.write(partnerId, (clock) => {
      const before = this.timeOf(clock)
      moved = at !== undefined && at !== before
      return { offset_ms: 0, frozen_at: at ?? before }
    })
    if (moved) await this.notify(partnerId)
    return this.state(partner)
  }

  /** Lets the partner's time run again from where it stands. */
  async unfreeze(partnerId: string): Promise<PartnerClockState> {
    const { partner, wrote } = await this.write(partnerId, (clock) =>
      clock?.frozen_at === undefined || clock.frozen_at === null
        ? undefined
        : { offset_ms: clock.frozen_at - this.sandbox.now(), frozen_at: null },
    )
    // Webhook retries waiting on the frozen clock re-arm their real-time timers.
    if (wrote) await this.notify(partnerId)
    return this.state(partner)
  }

  /** Moves the partner forward by exactly `ms` (its offset, or its frozen instant) and runs its due work. */
  async advance(partnerId: string, ms: number): Promise<PartnerClockState> {
    const { partner } = await this.write(partnerId, (current) => {
      const clock = current ?? { offset_ms: 0, frozen_at: null }
      return clock.frozen_at === null
        ? { offset_ms: clock.offset_ms + ms, frozen_at: null }
        : { offset_ms: 0, frozen_at: clock.frozen_at + ms }
    })
    await this.notify(partnerId)
    return this.state(partner)
  }

  /** Moves the partner to `at` (forward or back) and runs its due work. */
  async set(partnerId: string, at: number): Promise<PartnerClockState> {
    const { partner } = await this.write(partnerId, (clock) =>
      clock?.frozen_at !== undefined && clock.frozen_at !== null
        ? { offset_ms: 0, frozen_at: at }
        : { offset_ms: at - this.sandbox.now(), frozen_at: null },
    )
    await this.notify(partnerId)
    return this.state(partner)
  }

  onAdvance(listener: PartnerAdvanceListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The sandbox clock moved by `by`: frozen partners move with it. */
  private async shiftFrozen(by: number): Promise<void> {
    if (by === 0) return
    const moved = await this.seam.transaction(async (tx) => {
      const partners: PartnerRow[] = []
      for (const p of await tx.lookup('partners_with_own_clock', 'own')) {
        if (!p.clock || p.clock.frozen_at === null) continue
        const next = { ...p, clock: { ...p.clock, frozen_at: p.clock.frozen_at + by } }
        tx.put('partners', next)
        partners.push(next)
      }
      return partners
    })
    for (const partner of moved) this.take(partner)
  }

  /**
   * One transaction over the partner row: `next` gets its stored clock field (undefined:
   * none) and answers the new one, or undefined to leave it. The row as it stands, and
   * whether it wrote.
   */
  private async write(
    partnerId: string,
    next: (clock: ClockField | undefined) => ClockField | undefined,
  ): Promise<{ partner: PartnerRow; wrote: boolean }> {
    const { partner, wrote } = await this.seam.transaction(async (tx: StateTx) => {
      const partner = await tx.get('partners', partnerId)
      if (!partner) throw notFound(partnerId)
      const clock = next(partner.clock)
      if (!clock) return { partner, wrote: false }
      const written = { ...partner, clock }
      tx.put('partners', written)
      return { partner: written, wrote: true }
    })
    // Committed: the time read next (the answer, the due work) is the one the row holds.
    this.take(partner)
    return { partner, wrote }
  }

  private async notify(partnerId: string): Promise<void> {
    const now = this.nowOf(partnerId)
    for (const listener of this.listeners) await listener(partnerId, now)
  }
}

const notFound = (partnerId: string) =>
  new ApiError('not_found', `No partner with id ${partnerId}.`)
