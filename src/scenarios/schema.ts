import { z } from 'zod'
import { scenarioRule } from '../rules/rule-schema.js'
import { depositsSection, disputesSection, fundingSection, purchasesSection } from './money.js'
import { onboardingSection } from './onboarding.js'
import { otpSection } from './otp.js'
import { webhooksSection } from './webhooks.js'

/** A scenario's name: lowercase letters, digits and dashes. */
export const SCENARIO_NAME = /^[a-z0-9][a-z0-9-]*$/
const scenarioName = z.string().regex(SCENARIO_NAME, 'use lowercase letters, digits and dashes')

/**
 * A scenario scripts the sandbox's decisions (OTP codes, onboarding outcomes, funding,
 * webhook behaviour, rules). This is the skeleton every capability adds its section to;
 * every section is optional and falls back to the documented defaults.
 */
export const scenarioSchema = z
  .object({
    $schema: z.string().optional(),
    name: scenarioName.describe('Unique name, used by --scenario and the control plane.'),
    description: z
      .string()
      .min(1)
      .optional()
      .describe('What this scenario makes happen, for people (optional).'),
    clock: z
      .object({
        start: z.iso.datetime({ offset: true }).optional().describe('Sandbox time at start-up.'),
        frozen: z.boolean().optional().describe('Start with the clock frozen.'),
      })
      .strict()
      .optional(),
    otp: otpSection.optional(),
    onboarding: onboardingSection.optional(),
    funding: fundingSection.optional(),
    deposits: depositsSection.optional(),
    purchases: purchasesSection.optional(),
    disputes: disputesSection.optional(),
    webhooks: webhooksSection.optional(),
    rules: z
      .array(scenarioRule)
      .max(50)
      .optional()
      .describe(
        'Rules for matching partner API requests (docs/rules.md): an answer, a delay, a dropped connection or decisions; counted per partner.',
      ),
    rate_limit: z
      .object({
        per_minute: z
          .number()
          .int()
          .positive()
          .describe('Requests per minute per partner, replacing each partner’s own rate_limit.'),
      })
      .strict()
      .optional(),
  })
  .strict()

export type Scenario = z.infer<typeof scenarioSchema>
