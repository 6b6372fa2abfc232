import { z } from 'zod'
import { parseDuration } from '../clock.js'
import type { OnboardingOutcome } from '../store/records.js'
import { emailMatches } from './otp.js'

/**
 * The scenario's say on how an onboarding ends. Rules are tried in order, first match
 * wins; then the default magic values of DESIGN.md; then the scenario's `default`.
 */

const duration = z.union([z.string(), z.number().int().nonnegative()]).refine((v) => {
  try {
    parseDuration(v)
    return true
  } catch {
    return false
  }
}, 'a duration such as 30s, 10m, 2h, or milliseconds')

const outcome = z.enum(['pass', 'kyc_fail', 'underwriting_decline', 'manual_review'])

export const onboardingSection = z
  .object({
    rules: z
      .array(
        z
          .object({
            email: z
              .string()
              .min(1)
              .optional()
              .describe('Exact email, or a pattern with * wildcards.'),
            last_name: z.string().min(1).optional().describe('Exact last name, case-insensitive.'),
            ssn: z
              .string()
              .regex(/^\d{9}$/, '9 digits')
              .optional(),
            outcome,
            review_after: duration.optional(),
            review_outcome: z.enum(['pass', 'kyc_fail']).optional(),
          })
          .strict()
          .refine((r) => r.email || r.last_name || r.ssn, {
            message: 'give at least one of email, last_name, ssn to match on',
            // Also when another field of the rule is bad: every bad value in one answer.
            when: (payload) => typeof payload.value === 'object' && payload.value !== null,
          }),
      )
      .optional(),
    magic_values: z
      .boolean()
      .optional()
      .describe('Apply the default magic SSNs and last name (default true).'),
    default: outcome.optional().describe('Outcome when nothing matches (default pass).'),
    review_after: duration
      .optional()
      .describe('How long a manual review takes on the sandbox clock (default 10m).'),
    review_outcome: z
      .enum(['pass', 'kyc_fail'])
      .optional()
      .describe('How a manual review ends (default pass).'),
    default_product_id: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .describe('product_id of a completion that gives none (null: no default).'),
    default_inquiry_id: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .describe('inquiry_id of a completion that gives none (null: no default).'),
  })
  .strict()

export const DEFAULT_REVIEW_MS = 10 * 60_000

/** DESIGN.md's magic values. */
export const magicValues = {
  kycFailSsn: '000000001',
  kycFailLastName: 'Denied',
  underwritingDeclineSsn: '000000007',
  manualReviewSsn: '000000004',
} as const

/** What these decisions read of a scenario: only its own sections (schema.ts imports this). */
type OnboardingScenario = { onboarding?: z.infer<typeof onboardingSection> }

export interface OnboardingDecision {
  outcome: OnboardingOutcome
  reason: string | null
  review_ms: number | null
  review_outcome: 'pass' | 'kyc_fail' | null
}

const reasons: Record<OnboardingOutcome, string | null> = {
  pass: null,
  kyc_fail: 'identity_verification_failed',
  underwriting_decline: 'underwriting_declined',
  manual_review: 'manual_review_required',
}

export function decideOnboarding(
  scenario: OnboardingScenario,
  applicant: { email: string; last_name: string; ssn: string },
): OnboardingDecision {
  const section = scenario.onboarding
  const reviewMs = parseDuration(section?.review_after ?? DEFAULT_REVIEW_MS)
  const make = (
    o: OnboardingOutcome,
    review?: { after?: string | number; outcome?: 'pass' | 'kyc_fail' },
  ) => ({
    outcome: o,
    reason: reasons[o],
    review_ms:
      o === 'manual_review'
        ? review?.after !== undefined
          ? parseDuration(review.after)
          : reviewMs
        : null,
    review_outcome:
      o === 'manual_review' ? (review?.outcome ?? section?.review_outcome ?? 'pass') : null,
  })
  for (const rule of section?.rules ?? []) {
    if (rule.email && !emailMatches(rule.email, applicant.email)) continue
    if (rule.last_name && rule.last_name.toLowerCase() !== applicant.last_name.toLowerCase())
      continue
    if (rule.ssn && rule.ssn !== applicant.ssn) continue
    return make(rule.outcome, { after: rule.review_after, outcome: rule.review_outcome })
  }
  if (section?.magic_values !== false) {
    if (
      applicant.ssn === magicValues.kycFailSsn ||
      applicant.last_name === magicValues.kycFailLastName
    ) {
      return make('kyc_fail')
    }
    if (applicant.ssn === magicValues.underwritingDeclineSsn) return make('underwriting_decline')
    if (applicant.ssn === magicValues.manualReviewSsn) return make('manual_review')
  }
  return make(section?.default ?? 'pass')
}

/** The sandbox-wide completion defaults (flags, environment, options); `off` means none. */
export interface SandboxCompletionDefaults {
  defaultInquiryId: string
  defaultProductId: string
}

/**
 * Server-configured defaults of the completion call, per field: the partner's `config` wins,
 * then the scenario, then the sandbox-wide option. `null` at any level configures no default,
 * which is how a partner reaches the spec's 400 `Missing inquiry_id or product_id`.
 */
export function completionDefaults(
  scenario: OnboardingScenario,
  partnerConfig: Record<string, unknown>,
  sandbox: SandboxCompletionDefaults,
) {
  const section = scenario.onboarding
  const pick = (key: 'default_inquiry_id' | 'default_product_id', fallback: string) => {
    const own = partnerConfig[key]
    if (typeof own === 'string' || own === null) return own
    const fromScenario = section?.[key]
    if (fromScenario !== undefined) return fromScenario
    return fallback === 'off' ? null : fallback
  }
  return {
    inquiry_id: pick('default_inquiry_id', sandbox.defaultInquiryId),
    product_id: pick('default_product_id', sandbox.defaultProductId),
  }
}
