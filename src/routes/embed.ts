import { OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import { exactOrigins, originPatterns, partnerOrigins } from '../domain/allowed-origins.js'
import { autoCompleteIfAsked, flowStatus } from '../domain/flow-completion.js'
import { currentStep } from '../domain/onboarding.js'
import {
  EmbedTokenError,
  flowResult,
  openWithToken,
  type Step,
  submitStep,
} from '../domain/onboarding-flow.js'
import {
  assertPartnerActive,
  PartnerUnavailableError,
  unavailablePage,
} from '../domain/partner-status.js'
import { redirectUriProblem } from '../domain/redirect-uri.js'
import { ApiError } from '../errors.js'
import { warnIfFramingRefused } from '../hosted/frame-check.js'
import { onboardingPage } from '../hosted/onboarding-page.js'
import { hostedErrorPage, setHostedPageHeaders } from '../hosted/page-headers.js'
import { attributeToPartner } from '../hosted/partner-attribution.js'
import { accessRoute, withAccess } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { passOrFail } from '../schemas/fields.js'

const tags = ['Hosted onboarding (embed)']

const StepResult = z
  .object({
    step: z.string(),
    next_step: z.string().nullable(),
    finished: z.boolean(),
    result: z
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
      .optional()
      .openapi({ description: 'The message the page posts to its host when the flow ends.' }),
  })
  .openapi('EmbedStepResult', {
    example: {
      step: 'underwriting',
      next_step: 'agreement',
      finished: false,
    },
  })

const FlowStatus = z
  .object({
    onboardingId: z.uuid(),
    status: z.string().openapi({ example: 'completed' }),
    consumerKycStatus: z.string().openapi({ example: 'approved' }),
    flow_result: passOrFail.nullable(),
    completed: z
      .boolean()
      .openapi({ description: 'The partner (or auto_complete) completed the onboarding.' }),
    failure_reason: z.string().nullable(),
    review_resolves_at: z.string().nullable(),
    card: z.object({ last4: z.string(), status: z.string() }).nullable(),
  })
  .openapi('EmbedFlowStatus', {
    example: {
      onboardingId: '3f0c6a52-5d1e-4b8a-9c2f-7e4d1a0b9c83',
      status: 'completed',
      consumerKycStatus: 'approved',
      flow_result: 'pass',
      completed: true,
      failure_reason: null,
      review_resolves_at: null,
      card: { last4: '4242', status: 'active' },
    },
  })

/** The onboarding a Bearer access token opens, or a 401 naming why not. */
function openWithBearer(deps: Deps, id: string, authorization: string | undefined) {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1]
  try {
    return openWithToken(deps, id, token)
  } catch (error) {
    if (error instanceof EmbedTokenError) throw new ApiError('unauthorized', error.message)
    throw error
  }
}

/**
 * The hosted onboarding flow: the page at `onboardingEmbedUrl`, and the step endpoints it
 * posts to with the onboarding's access token. Public (no partner credentials): the
 * access token is the credential, as in a real embedded flow.
 */
export function embedRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.get('/onboarding', (c) => {
    const id = c.req.query('onboarding_id')
    const token = c.req.query('access_token')
    let row: ReturnType<typeof openWithToken>
    try {
      row = openWithToken(deps, id, token)
      assertPartnerActive(deps, row.partner_id)
    } catch (error) {
      if (error instanceof PartnerUnavailableError) {
        return hostedErrorPage(c, unavailablePage.title, unavailablePage.message, 403)
      }
      if (!(error instanceof EmbedTokenError)) throw error
      return hostedErrorPage(
        c,
        error.title,
        error.message,
        error.title === 'Link expired' ? 410 : 401,
      )
    }
    const partner = deps.store.get('partners', row.partner_id)
    attributeToPartner(deps, c, row.partner_id)
    const origins = partnerOrigins(partner?.allowed_origins)
    const redirectUri = c.req.query('redirect_uri') ?? row.redirect_uri
    // A redirect_uri on the URL itself must meet the same rule as one given at start.
    if (
      redirectUri &&
      redirectUri !== row.redirect_uri &&
      redirectUriProblem(redirectUri, origins)
    ) {
      return hostedErrorPage(
        c,
        'Link not valid',
        'The redirect_uri of this link is not one of the partner\u2019s allowed origins.',
        400,
      )
    }
    warnIfFramingRefused(c, deps, 'hosted onboarding page', partner, origins)
    const nonce = deps.random.token(22)
    setHostedPageHeaders(c, nonce, origins)
    return c.html(
      onboardingPage(
        row,
        partner?.display_name ?? 'Card',
        {
          accessToken: token as string,
          stepsUrl: `/embed/onboarding/${row.id}/steps`,
          statusUrl: `/embed/onboarding/${row.id}/status`,
          allowedOrigins: exactOrigins(origins),
          originPatterns: originPatterns(origins),
          redirectUri: redirectUri ?? null,
          currentStep: currentStep(row) ?? 'result',
          finished: row.flow_result ? flowResult(row) : null,
          state: flowStatus(deps, row),
          partnerName: partner?.display_name ?? 'the app',
        },
        nonce,
      ),
    )
  })

  app.openapi(
    accessRoute('onboarding', {
      method: 'post',
      path: '/onboarding/{onboardingId}/steps/{step}',
      operationId: 'submitOnboardingStep',
      tags,
      summary: 'Submit one step of the hosted flow (used by the hosted page)',
      description:
        'Authorization: Bearer <accessToken>. identity_verification `{ confirmed: true }`; underwriting `{ employment_status, annual_income, source_of_funds }`; agreement `{ accepted }`. Steps go in order. The answer says the next step, or the outcome when the flow ends.',
      request: {
        params: z.object({
          onboardingId: z.uuid(),
          step: z.enum(['identity_verification', 'underwriting', 'agreement']),
        }),
        body: jsonBody(z.record(z.string(), z.unknown())),
      },
      responses: {
        200: jsonResponse(StepResult, 'The step was recorded.'),
        ...errorResponses(400, 401, 403, 409, 413, 415),
      },
    }),
    (c) => {
      const { onboardingId, step } = c.req.valid('param')
      const row = openWithBearer(deps, onboardingId, c.req.header('authorization'))
      assertPartnerActive(deps, row.partner_id)
      attributeToPartner(deps, c, row.partner_id)
      const answer = submitStep(deps, row, step as Step, c.req.valid('json'))
      if (answer.finished) autoCompleteIfAsked(deps, row.id)
      return c.json(answer, 200)
    },
  )

  app.openapi(
    accessRoute('onboarding', {
      method: 'get',
      path: '/onboarding/{onboardingId}/status',
      operationId: 'getOnboardingFlowStatus',
      tags,
      summary: 'The state of this onboarding (used by the hosted page while it waits)',
      description:
        "Authorization: Bearer <accessToken>. Only this onboarding: its status, KYC status, the flow's result, whether it was completed, and the issued card's last four digits. The page polls it after the flow ends, until the partner completes the onboarding (or auto_complete does).",
      request: { params: z.object({ onboardingId: z.uuid() }) },
      responses: {
        200: jsonResponse(FlowStatus, "The onboarding's state."),
        ...errorResponses(400, 401, 403),
      },
    }),
    (c) => {
      const row = openWithBearer(
        deps,
        c.req.valid('param').onboardingId,
        c.req.header('authorization'),
      )
      assertPartnerActive(deps, row.partner_id)
      attributeToPartner(deps, c, row.partner_id)
      return c.json(flowStatus(deps, row), 200)
    },
  )

  // The page is public: the access token in its URL is the credential.
  return withAccess('public', app)
}
