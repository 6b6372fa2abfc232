import { validationError } from '../errors.js'
import type { PartnerClocks } from './partner-clocks.js'

export const MIN_AGE = 18
export const MAX_AGE = 120

/** Age in whole years on the sandbox clock's date. */
export function ageOn(dateOfBirth: string, now: Date): number {
  const [y, m, d] = dateOfBirth.split('-').map(Number) as [number, number, number]
  let age = now.getUTCFullYear() - y
  if (now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d)) age--
  return age
}

/** A card holder is an adult: 18 to 120 years old today (on the partner's clock). */
export function assertAdult(
  deps: { clocks: PartnerClocks },
  partnerId: string,
  dateOfBirth: string,
  field = 'date_of_birth',
): void {
  const age = ageOn(dateOfBirth, deps.clocks.forPartner(partnerId).date())
  if (age < MIN_AGE) throw validationError(field, `the user must be at least ${MIN_AGE} years old`)
  if (age > MAX_AGE) throw validationError(field, `is not plausible (over ${MAX_AGE} years ago)`)
}
