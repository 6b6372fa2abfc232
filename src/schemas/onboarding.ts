import { z } from '@hono/zod-openapi'
import * as ex from './examples.js'
import { onboardingStatus, passOrFail } from './fields.js'
import { UUID_PATTERN } from './ids.js'
import { singleLine } from './text.js'
import { CalendarDate, Email, PersonName, PhoneNumber, Ssn } from './users.js'

const required = (max: number) => singleLine(z.string().trim().min(1, 'is required').max(max))

/** A deep link (myapp://…) or an http(s) URL whose origin is in allowed_origins (checked in domain). */
export const RedirectUri = singleLine(z.string().max(2048)).refine((v) => {
  try {
    return Boolean(new URL(v).protocol)
  } catch {
    return false
  }
}, 'must be an absolute URL or app link')

export const StartOnboardingBody = z
  .object({
    first_name: PersonName,
    last_name: PersonName,
    email: Email,
    phone_number: PhoneNumber,
    country_code: z
      .string()
      .trim()
      .toUpperCase()
      .pipe(z.string().regex(/^[A-Z]{2}$/, 'must be a 2-letter country code such as US')),
    date_of_birth: CalendarDate,
    address_line1: required(200),
    address_line2: singleLine(z.string().trim().max(200))
      .optional()
      .openapi({ description: 'Omit or send "" if none.' }),
    address_city: required(100),
    address_state: required(100),
    address_zip: required(20),
    ssn: Ssn,
    redirect_uri: RedirectUri.optional().openapi({
      description:
        'Sandbox extension: where the hosted flow redirects when it ends (with onboarding_id, result and outcome). An http(s) URL must be on one of allowed_origins; an app link (myapp://…) is allowed.',
    }),
  })
  .strict()
  .openapi('StartOnboarding', { example: ex.applicant })

export const OnboardingSession = z
  .object({
    message: z.string(),
    onboardingEmbedUrl: z.url(),
    accessToken: z.string(),
    expiresIn: z.number().int().openapi({ example: 3600, description: 'Seconds.' }),
    onboardingId: z.uuid(),
    consumerId: z.string(),
    status: z.string().openapi({ example: 'pending' }),
    consumerKycStatus: z.string().openapi({ example: 'pending' }),
  })
  .openapi('OnboardingSession', { example: ex.onboardingSession })

export const OnboardingLatest = z
  .object({
    onboardingId: z.uuid(),
    consumerId: z.string(),
    status: onboardingStatus,
    consumerKycStatus: z.string(),
    steps: z
      .object({
        identity_verification: z.boolean(),
        underwriting: z.boolean(),
        agreement: z.boolean(),
      })
      .openapi({ description: 'Step-progress flags of the hosted flow.' }),
    current_step: z
      .enum(['identity_verification', 'underwriting', 'agreement', 'result'])
      .nullable(),
    flow_result: passOrFail.nullable(),
    failure_reason: z.string().nullable(),
    review_resolves_at: z.string().nullable(),
    card_id: z.string().nullable(),
    accessTokenExpiresAt: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('OnboardingProgress', { example: ex.onboardingProgress })

export const CompleteOnboardingBody = z
  .object({
    result: passOrFail,
    data: z.union([z.string(), z.record(z.string(), z.unknown())]).openapi({
      description: 'Payload from the embed; an object is JSON-stringified server-side.',
    }),
    agreement_accepted: z.boolean(),
    inquiry_id: z.string().min(1).optional(),
    product_id: z.string().min(1).optional(),
    product_configuration: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .strict()
  .openapi('CompleteOnboarding', {
    example: {
      result: 'pass',
      data: { inquiry: 'inq_sandbox_default', status: 'approved' },
      agreement_accepted: true,
    },
  })

/**
 * Any id, not only a uuid: spec section 4 answers 404 for an onboarding that does not exist,
 * and a malformed id names none (a 400 here would break that rule). So the document's uuid
 * pattern is the one place where a path parameter's pattern is stricter than its check.
 */
export const OnboardingIdParam = z.object({
  onboardingId: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      format: 'uuid',
      pattern: UUID_PATTERN,
      description:
        'The onboardingId of the start response. A value that is not one names no onboarding: 404, not 400.',
      param: { example: ex.ids.onboarding },
    }),
})
