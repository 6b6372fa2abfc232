import { z } from '@hono/zod-openapi'
import { underwritingChoices } from '../domain/onboarding-flow.js'
import { passOrFail } from './fields.js'

/**
 * The bodies the hosted onboarding page posts, one per step, typed so a client of the document
 * cannot send a misspelt field. The domain checks them again (domain/onboarding-flow.ts): a
 * step is also submitted from the control plane's headless walk.
 */
export const IdentityVerificationStep = z
  .object({
    confirmed: z.literal(true, {
      error: 'must be true: the user confirms the details are theirs',
    }),
  })
  .openapi('IdentityVerificationStep', { example: { confirmed: true } })

const choice = (field: keyof typeof underwritingChoices) =>
  z.enum(underwritingChoices[field], {
    error: `must be one of ${underwritingChoices[field].join(', ')}`,
  })

export const UnderwritingStep = z
  .object({
    employment_status: choice('employment_status'),
    annual_income: choice('annual_income'),
    source_of_funds: choice('source_of_funds'),
  })
  .openapi('UnderwritingStep', {
    example: {
      employment_status: 'employed',
      annual_income: '50k_100k',
      source_of_funds: 'salary',
    },
  })

export const AgreementStep = z
  .object({ accepted: z.boolean({ error: 'must be true or false' }) })
  .openapi('AgreementStep', {
    example: { accepted: true },
    description: 'false declines the card agreement: the flow ends with a fail.',
  })

/** The steps in their order, with what each takes. */
export const stepBodies = [
  ['identity_verification', IdentityVerificationStep, 'Confirm the applicant details'],
  ['underwriting', UnderwritingStep, 'Answer the underwriting questions'],
  ['agreement', AgreementStep, 'Accept or decline the card agreement'],
] as const

/** The message the page posts to its host when the flow ends: what a completion forwards. */
export const FlowMessage = z
  .object({
    type: z.literal('partner-sandbox:onboarding'),
    version: z.literal(1),
    onboardingId: z.uuid(),
    result: passOrFail.nullable(),
    outcome: z.enum(['approved', 'declined', 'manual_review']),
    reason: z.string().nullable(),
    agreementAccepted: z.boolean(),
    data: z.record(z.string(), z.unknown()),
  })
  .openapi('OnboardingFlowMessage')
