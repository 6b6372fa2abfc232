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

/**
 * Response overrides (domain/overrides.ts): made and removed through the control plane, and
 * tried by the gate on every authenticated partner request, which reads the partner's and the
 * global list in the request (one made or removed through any process counts from the next).
 */
export class Overrides {
  private readonly state: State
  private readonly ctx: { random: Random; clock: Clock; clocks: PartnerClocks }

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
   * there are none (the usual request).
   */
  async candidates(partnerId: string): Promise<OverrideRow[] | undefined> {
    const [own, global] = await Promise.all([
      this.state.lookup(INDEX, partnerId),
      this.state.lookup(INDEX, GLOBAL),
    ])
    return merged(own, global)
  }

  /** Takes an answer of the first candidate that has one left (see claimOverride). */
  claim(candidates: OverrideRow[]): OverrideRow | undefined | Promise<OverrideRow | undefined> {
    const [first] = candidates
    // Answering without a count writes nothing.
    if (!first || first.remaining === null) return first
    return this.state.transaction((tx) => claimOverride(tx, candidates))
  }
}

const merged = (own: OverrideRow[], global: OverrideRow[]) =>
  own.length === 0 && global.length === 0 ? undefined : ordered([...own, ...global])
