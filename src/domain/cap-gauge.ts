import type { Change } from '../state/seam.js'

/** A partner's events and deliveries: what the per-partner caps hold. */
export interface CapCounts {
  events: number
  deliveries: number
}

/**
 * Upper bounds of each partner's events and deliveries, so a cap check below the caps (nearly
 * every one: a partner reaches 10,000 events after hours of traffic, if ever) costs no count.
 * A bound is the last exact count plus every event or delivery written since, as the commits
 * are heard (this process's and, on a database, every replica's): a delivery's later attempts
 * and the rows retention removes are not taken off, so the bound only errs upward, and it is
 * trusted only while it stays `slack` under a cap. The slack covers what may be written and not
 * yet heard (another replica's commits on their way): within it of a cap, every check counts.
 */
export class CapGauge {
  /** Events and deliveries heard written, per partner, since the process started. */
  private readonly heard = new Map<string, CapCounts>()
  /** The last exact count of a partner, and what had been heard when it was asked for. */
  private readonly counted = new Map<string, { counts: CapCounts; heard: CapCounts }>()
  /** Moves at each `forget`: a count asked for before it is not kept after it. */
  private generation = 0

  constructor(
    private readonly cap: number,
    private readonly slack: number,
  ) {}

  /** Hears a commit's changes (State.onCommit): a removal is not taken off. */
  hear(changes: readonly Change[]): void {
    for (const change of changes) {
      if (!change.row) continue
      const kind =
        change.collection === 'events'
          ? 'events'
          : change.collection === 'webhook_deliveries'
            ? 'deliveries'
            : undefined
      const partnerId = change.row.partner_id
      if (kind === undefined || typeof partnerId !== 'string') continue
      const heard = this.heard.get(partnerId)
      if (heard) heard[kind]++
      else this.heard.set(partnerId, { events: 0, deliveries: 0, [kind]: 1 })
    }
  }

  /** Whether the partner is surely under both caps by more than the slack: no count needed. */
  surelyUnder(partnerId: string): boolean {
    const last = this.counted.get(partnerId)
    if (!last) return false
    const heard = this.heardOf(partnerId)
    const limit = this.cap - this.slack
    return (
      last.counts.events + heard.events - last.heard.events <= limit &&
      last.counts.deliveries + heard.deliveries - last.heard.deliveries <= limit
    )
  }

  /**
   * Counts the partner exactly with `count` and keeps the result as its bound: what is heard
   * while the count runs is added to it (it may be in the count already: the bound errs up).
   */
  async count(partnerId: string, count: () => Promise<CapCounts>): Promise<CapCounts> {
    const heard = { ...this.heardOf(partnerId) }
    const generation = this.generation
    const counts = await count()
    if (generation === this.generation) this.counted.set(partnerId, { counts, heard })
    return counts
  }

  /** Every bound starts over (a reset or restore replaced the rows). */
  forget(): void {
    this.generation++
    this.counted.clear()
  }

  private heardOf(partnerId: string): CapCounts {
    return this.heard.get(partnerId) ?? { events: 0, deliveries: 0 }
  }
}
