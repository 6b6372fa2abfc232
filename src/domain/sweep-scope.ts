import type { IndexRow } from '../state/indexes.js'
import type { StateReader } from '../state/seam.js'

/**
 * What one run of the sweep (domain/sweeper.ts) covers, as the rules it runs see it. Apart
 * from the Sweeper, which still takes Deps: a service its rules live in need not reach Deps.
 * Each row is due on its own partner's clock; a partner's advance sweeps only that partner's rows.
 */
export interface SweepScope {
  /** Only this partner's rows (a partner clock moved); every partner when absent. */
  partnerId?: string
  /** The time of a partner's clock. */
  nowOf(partnerId: string): number
}

/** Whether a row of `partnerId` is in the sweep and its due time `at` (ISO) has come. */
export function isDue(scope: SweepScope, partnerId: string, at: string | null): boolean {
  if (at === null) return false
  if (scope.partnerId !== undefined && scope.partnerId !== partnerId) return false
  return Date.parse(at) <= scope.nowOf(partnerId)
}

/** The indexes of rows waiting on the clock (all under 'waiting'), each with its by-partner twin. */
const byPartner = {
  onboardings_in_review: 'onboardings_in_review_by_partner',
  deposits_pending: 'deposits_pending_by_partner',
  disputes_under_review: 'disputes_under_review_by_partner',
} as const

/**
 * The rows of a waiting index (state/indexes.ts) the sweep looks at, through the seam: one
 * partner's, read from the index by partner, or everyone's.
 */
export function waitingRowsOf<I extends keyof typeof byPartner>(
  reader: StateReader,
  index: I,
  scope: SweepScope,
): Promise<IndexRow<I>[]> {
  // Both indexes of a pair are over one collection: their rows are of one type.
  return scope.partnerId === undefined
    ? reader.lookup(index, 'waiting')
    : (reader.lookup(byPartner[index], scope.partnerId) as Promise<IndexRow<I>[]>)
}
