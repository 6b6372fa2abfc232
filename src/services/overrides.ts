import type { Clock } from '../clock.js'
import {
  claimOverride,
  createOverride,
  GLOBAL,
  listOverrides,
  type OverrideInput,
  ordered,
  removeOverride,
} from '../domain/overrides.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { partnerById } from '../domain/partners.js'
import type { OperationIndex } from '../openapi/operations.js'
import type { Random } from '../random.js'
import type { State } from '../state/seam.js'
import type { OverrideRow } from '../store/records-overrides.js'

const INDEX = 'overrides_by_partner'

/** A list of overrides as read at the key version it was read at. */
interface Copy {
  version: number
  rows: OverrideRow[]
}

/** Partners whose lists are kept at most; past it the copies start over (they are only copies). */
const COPIES = 1000

/**
 * Response overrides (domain/overrides.ts): made and removed through the control plane, and
 * tried by the gate on every authenticated partner request. The gate reads a copy of the
 * partner's and the global list, checked against their key versions (no await on the usual
 * request, where both are empty).
 */
export class Overrides {
  private readonly state: State
  private readonly ctx: { random: Random; clock: Clock; clocks: PartnerClocks }
  private readonly copies = new Map<string, Copy>()

  constructor(s: {
    state: State
    random: Random
    clock: Clock
    clocks: PartnerClocks
  }) {
    this.state = s.state
    this.ctx = { random: s.random, clock: s.clock, clocks: s.clocks }
  }

  async list(partnerId: string | null): Promise<OverrideRow[]> {
    if (partnerId !== null) await partnerById(this.state, partnerId)
    return listOverrides(this.state, partnerId)
  }

  create(
    operations: OperationIndex,
    partnerId: string | null,
    input: OverrideInput,
  ): Promise<OverrideRow> {
    return this.state.transaction(async (tx) => {
      if (partnerId !== null) await partnerById(tx, partnerId)
      return createOverride(this.ctx, tx, operations, partnerId, input)
    })
  }

  remove(partnerId: string | null, overrideId: string): Promise<void> {
    return this.state.transaction(async (tx) => {
      if (partnerId !== null) await partnerById(tx, partnerId)
      await removeOverride(tx, partnerId, overrideId)
    })
  }

  /**
   * The partner's and the global overrides, in the order they are tried; undefined when
   * there are none (the usual request). A promise only when a list changed since last read.
   */
  candidates(partnerId: string): OverrideRow[] | undefined | Promise<OverrideRow[] | undefined> {
    const own = this.current(partnerId)
    const global = this.current(GLOBAL)
    if (own && global) return merged(own, global)
    return Promise.all([own ?? this.read(partnerId), global ?? this.read(GLOBAL)]).then(
      ([mine, every]) => merged(mine, every),
    )
  }

  /** Takes an answer of the first candidate that has one left (see claimOverride). */
  claim(candidates: OverrideRow[]): OverrideRow | undefined | Promise<OverrideRow | undefined> {
    const [first] = candidates
    // Answering without a count writes nothing.
    if (!first || first.remaining === null) return first
    return this.state.transaction((tx) => claimOverride(tx, candidates))
  }

  private current(key: string): OverrideRow[] | undefined {
    const copy = this.copies.get(key)
    return copy && copy.version === this.state.keyVersion(INDEX, key) ? copy.rows : undefined
  }

  private async read(key: string): Promise<OverrideRow[]> {
    // The version first: a write meanwhile makes the copy stale, never wrongly current.
    const version = this.state.keyVersion(INDEX, key)
    const rows = await this.state.lookup(INDEX, key)
    if (this.copies.size >= COPIES) this.copies.clear()
    this.copies.set(key, { version, rows })
    return rows
  }
}

const merged = (own: OverrideRow[], global: OverrideRow[]) =>
  own.length === 0 && global.length === 0 ? undefined : ordered([...own, ...global])
