import { OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import { cardOf, publicCard, toDollars } from '../domain/cards.js'
import {
  completeOnboarding,
  onboardingsOf,
  onboardingView,
  startOnboarding,
} from '../domain/onboarding.js'
import { accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import { CardStatus, Completion, envelope } from '../schemas/cards.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import {
  CompleteOnboardingBody,
  OnboardingIdParam,
  OnboardingLatest,
  OnboardingSession,
  StartOnboardingBody,
} from '../schemas/onboarding.js'

const tags = ['Card onboarding']

const NoOnboarding = z
  .object({
    success: z.literal(false),
    error: z.object({ message: z.literal('No onboarding found for this user') }),
  })
  .openapi('NoOnboarding', {
    description: 'Not an HTTP error: 200 with success false; the data key is omitted.',
  })

export function onboardingRoutes(deps: Deps) {
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
    (c) => {
      const body = c.req.valid('json')
      return c.json(
        {
          success: true as const,
          data: startOnboarding(deps, c.get('partner'), c.get('user'), body),
        },
        200,
      )
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
    (c) => {
      const latest = onboardingsOf(deps, c.get('user').id)[0]
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
    (c) => {
      const { onboardingId } = c.req.valid('param')
      const result = completeOnboarding(
        deps,
        c.get('partner'),
        c.get('user'),
        onboardingId,
        c.req.valid('json'),
      )
      return c.json({ success: true as const, data: result }, 200)
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
    (c) => {
      const user = c.get('user')
      const latest = onboardingsOf(deps, user.id)[0]
      const card = cardOf(deps, user.id)
      return c.json(
        {
          success: true as const,
          data: {
            user_id: user.id,
            kyc_status: user.kyc_status,
            provider_consumer_id: user.provider_consumer_id,
            onboarding: latest
              ? {
                  onboardingId: latest.id,
                  status: latest.status,
                  consumerKycStatus: latest.consumer_kyc_status,
                  failure_reason: latest.failure_reason,
                  review_resolves_at: latest.review_resolves_at,
                }
              : null,
            card: card ? publicCard(card) : null,
            balances: {
              available: toDollars(card?.available_balance_cents ?? 0),
              ledger: toDollars(card?.ledger_balance_cents ?? 0),
              currency: 'USD' as const,
            },
          },
        },
        200,
      )
    },
  )

  return app
}
