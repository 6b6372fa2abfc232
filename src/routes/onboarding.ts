import { OpenAPIHono, z } from '@hono/zod-openapi'
import { onboardingView } from '../domain/onboarding.js'
import { accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import type { TagName } from '../openapi/tags.js'
import { CardStatus, Completion, envelope } from '../schemas/cards.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import {
  CompleteOnboardingBody,
  OnboardingIdParam,
  OnboardingLatest,
  OnboardingSession,
  StartOnboardingBody,
} from '../schemas/onboarding.js'
import type { Onboarding } from '../services/onboarding.js'
import { presentCardStatus, presentCompletion, presentStarted } from './onboarding-views.js'

const tags: TagName[] = ['Card onboarding']

const NoOnboarding = z
  .object({
    success: z.literal(false),
    error: z.object({ message: z.literal('No onboarding found for this user') }),
  })
  .openapi('NoOnboarding', {
    description: 'Not an HTTP error: 200 with success false; the data key is omitted.',
  })

export function onboardingRoutes({
  onboarding,
  baseUrl,
}: {
  onboarding: Onboarding
  baseUrl(): string
}) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    accessRoute('session', {
      method: 'post',
      path: '/partner/cards/onboarding',
      operationId: 'startCardOnboarding',
      tags,
      summary: 'Start (or resume) card onboarding',
      description:
        'Answers the onboarding session with a hosted `onboardingEmbedUrl` served by this sandbox and a short-lived `accessToken` (expiresIn: seconds). While an onboarding is pending or in progress, starting again resumes it: same onboardingId, a new access token (the old one stops working), progress kept unless the applicant details changed.',
      request: { body: jsonBody(StartOnboardingBody) },
      responses: {
        200: jsonResponse(
          envelope(OnboardingSession, 'OnboardingStarted'),
          'The onboarding session.',
        ),
        ...errorResponses(400, ...orgErrors, 409, 413, 415),
      },
    }),
    async (c) => {
      const started = await onboarding.start(c.get('partner'), c.get('user'), c.req.valid('json'))
      return c.json({ success: true as const, data: presentStarted(baseUrl(), started) }, 200)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'get',
      path: '/partner/cards/onboarding/latest',
      operationId: 'getLatestCardOnboarding',
      tags,
      summary: "The user's most recent onboarding, with step-progress flags",
      responses: {
        200: jsonResponse(
          z.union([envelope(OnboardingLatest, 'OnboardingLatestFound'), NoOnboarding]),
          'The onboarding, or success false when there is none.',
        ),
        ...errorResponses(...orgErrors),
      },
    }),
    async (c) => {
      const latest = await onboarding.latest(c.get('user'))
      if (!latest) {
        return c.json(
          {
            success: false as const,
            error: { message: 'No onboarding found for this user' as const },
          },
          200,
        )
      }
      return c.json({ success: true as const, data: onboardingView(latest) }, 200)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'post',
      path: '/partner/cards/onboarding/{onboardingId}/complete',
      operationId: 'completeCardOnboarding',
      tags,
      summary: 'Complete an onboarding with the outcome of the embedded flow',
      description:
        'A pass with agreement_accepted true approves the user (kyc_status approved, provider_consumer_id set) and issues an active card, unless the sandbox decided otherwise (magic values, scenario): then it fails or goes to manual review. Completing again with the same result answers the first completion again; a different result is 409.',
      request: { params: OnboardingIdParam, body: jsonBody(CompleteOnboardingBody) },
      responses: {
        200: jsonResponse(
          envelope(Completion, 'OnboardingCompleted'),
          'The completion: consumer and card.',
        ),
        ...errorResponses(400, ...orgErrors, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const { onboardingId } = c.req.valid('param')
      const completion = await onboarding.complete(
        c.get('partner'),
        c.get('user'),
        onboardingId,
        c.req.valid('json'),
      )
      return c.json({ success: true as const, data: presentCompletion(completion) }, 200)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'get',
      path: '/partner/cards/status',
      operationId: 'getCardStatus',
      tags: ['Cards'],
      summary: 'Onboarding state, KYC status, the card and its balances',
      responses: {
        200: jsonResponse(envelope(CardStatus, 'CardStatusEnvelope'), 'The card status.'),
        ...errorResponses(...orgErrors),
      },
    }),
    async (c) => {
      const user = c.get('user')
      const status = await onboarding.cardStatus(user)
      return c.json({ success: true as const, data: presentCardStatus(user, status) }, 200)
    },
  )

  return app
}
