import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { AppEnv, Deps } from '../deps.js'
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
import { partnerOrigins, redirectUriProblem } from '../domain/redirect-uri.js'
import { ApiError } from '../errors.js'
import { onboardingPage } from '../hosted/onboarding-page.js'
import { hostedErrorPage, setHostedPageHeaders } from '../hosted/page-headers.js'
import { validationHook } from '../http/validation.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'

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
        result: z.enum(['pass', 'fail']).nullable(),
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
    const nonce = deps.random.token(22)
    setHostedPageHeaders(c, nonce, origins)
    return c.html(
      onboardingPage(
        row,
        partner?.display_name ?? 'Card',
        {
          accessToken: token as string,
          stepsUrl: `/embed/onboarding/${row.id}/steps`,
          allowedOrigins: origins,
          redirectUri: redirectUri ?? null,
          currentStep: currentStep(row) ?? 'result',
          finished: row.flow_result ? flowResult(row) : null,
        },
        nonce,
      ),
    )
  })

  app.openapi(
    createRoute({
      method: 'post',
      path: '/onboarding/{onboardingId}/steps/{step}',
      operationId: 'submitOnboardingStep',
      tags,
      security: [{ OnboardingAccessToken: [] }],
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
      const token = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1]
      let row: ReturnType<typeof openWithToken>
      try {
        row = openWithToken(deps, onboardingId, token)
      } catch (error) {
        if (error instanceof EmbedTokenError) throw new ApiError('unauthorized', error.message)
        throw error
      }
      assertPartnerActive(deps, row.partner_id)
      return c.json(submitStep(deps, row, step as Step, c.req.valid('json')), 200)
    },
  )

  return app
}
