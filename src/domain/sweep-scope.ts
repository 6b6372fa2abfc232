/**
 * What one run of the sweep (domain/sweeper.ts) covers, as the rules it runs see it.
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
