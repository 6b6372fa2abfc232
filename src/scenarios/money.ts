import { z } from 'zod'
import { parseDuration } from '../clock.js'

/** The scenario's say on funding, deposits, purchases and disputes. */

const duration = z.union([z.string(), z.number().int().nonnegative()]).refine((v) => {
  try {
    parseDuration(v)
    return true
  } catch {
    return false
  }
}, 'a duration such as 30s, 10m, 2h, 1d, or milliseconds')

const money = z.number().positive().multipleOf(0.01, 'at most 2 decimals')

export const fundingSection = z
  .object({
    max_amount: money
      .optional()
      .describe('Largest simulate-fund or deposit amount (default 10000).'),
    initial_balance: z
      .number()
      .nonnegative()
      .multipleOf(0.01)
      .optional()
      .describe('Balance a new card starts with.'),
  })
  .strict()

export const depositsSection = z
  .object({
    settlement_delay: duration
      .optional()
      .describe('How long a deposit stays pending (default 30m).'),
    magic_values: z
      .boolean()
      .optional()
      .describe('Apply the default magic amounts (default true).'),
    rules: z
      .array(
        z
          .object({
            amount: money.optional().describe('Exact amount.'),
            cents: z
              .number()
              .int()
              .min(0)
              .max(99)
              .optional()
              .describe('The cents part, e.g. 51 for any x.51.'),
            outcome: z.enum(['succeeded', 'failed']),
            reason: z.string().min(1).optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict()

export const purchasesSection = z
  .object({
    rules: z
      .array(
        z
          .object({
            merchant: z.string().min(1).optional().describe('Merchant name, with * wildcards.'),
            amount_over: money.optional().describe('Decline amounts above this.'),
            decline_reason: z.string().min(1),
          })
          .strict(),
      )
      .optional(),
  })
  .strict()

export const disputesSection = z
  .object({
    resolve_after: duration
      .optional()
      .describe('How long a dispute stays under review (default 7d).'),
    outcome: z.enum(['won', 'lost']).optional().describe('How disputes end (default won).'),
    rules: z
      .array(z.object({ reason: z.string().min(1), outcome: z.enum(['won', 'lost']) }).strict())
      .optional(),
  })
  .strict()

export const DEFAULT_MAX_AMOUNT_CENTS = 1_000_000
export const DEFAULT_SETTLEMENT_MS = 30 * 60_000
export const DEFAULT_DISPUTE_MS = 7 * 86_400_000

/** DESIGN-style magic amounts for deposits: the cents decide. */
export const depositMagic: Record<number, string> = {
  51: 'insufficient_funds',
  52: 'account_closed',
  53: 'return_by_bank',
}

/** What these decisions read of a scenario: only its own sections (schema.ts imports this). */
type MoneyScenario = {
  funding?: z.infer<typeof fundingSection>
  deposits?: z.infer<typeof depositsSection>
  purchases?: z.infer<typeof purchasesSection>
  disputes?: z.infer<typeof disputesSection>
}

const cents = (amount: number) => Math.round(amount * 100)

export function fundingLimits(scenario: MoneyScenario) {
  return {
    maxCents: scenario.funding?.max_amount
      ? cents(scenario.funding.max_amount)
      : DEFAULT_MAX_AMOUNT_CENTS,
    initialCents: scenario.funding?.initial_balance ? cents(scenario.funding.initial_balance) : 0,
  }
}

export function decideDeposit(scenario: MoneyScenario, amountCents: number) {
  const section = scenario.deposits
  const delay = parseDuration(section?.settlement_delay ?? DEFAULT_SETTLEMENT_MS)
  for (const rule of section?.rules ?? []) {
    if (rule.amount !== undefined && cents(rule.amount) !== amountCents) continue
    if (rule.cents !== undefined && amountCents % 100 !== rule.cents) continue
    return {
      outcome: rule.outcome,
      reason: rule.outcome === 'failed' ? (rule.reason ?? 'declined_by_scenario') : null,
      delay,
    }
  }
  const magic = section?.magic_values === false ? undefined : depositMagic[amountCents % 100]
  if (magic) return { outcome: 'failed' as const, reason: magic, delay }
  return { outcome: 'succeeded' as const, reason: null, delay }
}

export function purchaseDecline(
  scenario: MoneyScenario,
  merchantName: string,
  amountCents: number,
  wildcard: (p: string, v: string) => boolean,
) {
  for (const rule of scenario.purchases?.rules ?? []) {
    if (rule.merchant && !wildcard(rule.merchant, merchantName)) continue
    if (rule.amount_over !== undefined && amountCents <= cents(rule.amount_over)) continue
    return rule.decline_reason
  }
  return null
}

export function decideDispute(scenario: MoneyScenario, reason: string) {
  const section = scenario.disputes
  const rule = section?.rules?.find((r) => r.reason === reason)
  return {
    outcome: rule?.outcome ?? section?.outcome ?? 'won',
    delay: parseDuration(section?.resolve_after ?? DEFAULT_DISPUTE_MS),
  }
}
