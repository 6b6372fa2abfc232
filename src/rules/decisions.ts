import type { Scenario } from '../scenarios/schema.js'
import type { RuleRow } from './rule-schema.js'

export type Decisions = NonNullable<RuleRow['decide']>

/**
 * The scenario a request runs under once rules took decisions for it: the scenario in force
 * with each decided section replaced by one that decides just that, so the domain asks the
 * scenario as it always does (scenarios/money.ts, onboarding.ts, otp.ts).
 */
export function decidedScenario(base: Scenario, decide: Decisions): Scenario {
  const next: Scenario = { ...base, name: `${base.name}+rules` }
  if (decide.purchase_decline !== undefined)
    next.purchases = { rules: [{ decline_reason: decide.purchase_decline }] }
  if (decide.kyc !== undefined)
    next.onboarding = { ...base.onboarding, rules: [], magic_values: false, default: decide.kyc }
  if (decide.deposit_failure !== undefined)
    next.deposits = {
      ...base.deposits,
      rules: [{ outcome: 'failed', reason: decide.deposit_failure }],
    }
  if (decide.otp_code !== undefined)
    next.otp = { ...base.otp, code: decide.otp_code, random: false, rules: [] }
  return next
}
