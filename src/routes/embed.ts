import { OpenAPIHono, z } from '@hono/zod-openapi'
import { exactOrigins, originPatterns } from '../domain/allowed-origins.js'
import { currentStep } from '../domain/onboarding.js'
import { EmbedLinkError, flowResult, type Step } from '../domain/onboarding-flow.js'
import { PartnerUnavailableError, unavailablePage } from '../domain/partner-status.js'
import { ApiError } from '../errors.js'
import { linkProblemPage, presentFlowStatus, presentStep } from '../hosted/flow-views.js'
import { warnIfFramingRefused } from '../hosted/frame-check.js'
import { onboardingPage } from '../hosted/onboarding-page.js'
import { hostedErrorPage, setHostedPageHeaders } from '../hosted/page-headers.js'
import { attributePartner } from '../hosted/partner-attribution.js'
import { accessRoute, withAccess } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import type { Logger } from '../logger.js'
import type { TagName } from '../openapi/tags.js'
import type { Random } from '../random.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { FlowMessage, stepBodies } from '../schemas/embed-steps.js'
import { passOrFail } from '../schemas/fields.js'
import { OnboardingId } from '../schemas/ids.js'
import type { HostedPage, Onboarding } from '../services/onboarding.js'

const tags: TagName[] = ['Hosted onboarding (embed)']

const StepResult = z
  .object({
    step: z.string(),
    next_step: z.string().nullable(),
    finished: z.boolean(),
    result: FlowMessage.optional().openapi({
      description: 'The message the page posts to its host when the flow ends.',
    }),
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

/** Each step its own operation, so each has its own typed body. */
const stepOperationIds: Record<Step, string> = {
  identity_verification: 'submitIdentityVerificationStep',
  underwriting: 'submitUnderwritingStep',
  agreement: 'submitAgreementStep',
}

/** The access token of an `Authorization: Bearer` header. */
const bearer = (authorization: string | undefined) =>
  /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1]

/** A call of the hosted page whose token opens nothing: a 401 saying why. */
async function withBearer<T>(call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (error) {
    if (error instanceof EmbedLinkError)
      throw new ApiError('unauthorized', linkProblemPage(error.problem).message)
    throw error
  }
}

/**
 * The hosted onboarding flow: the page at `onboardingEmbedUrl`, and the step endpoints it
 * posts to with the onboarding's access token. Public (no partner credentials): the
 * access token is the credential, as in a real embedded flow.
 */
export function embedRoutes(s: { onboarding: Onboarding; random: Random; logger: Logger }) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.get('/onboarding', async (c) => {
    const token = c.req.query('access_token')
    let page: HostedPage
    try {
      page = await s.onboarding.openPage(
        c.req.query('onboarding_id'),
        token,
        c.req.query('redirect_uri'),
        (partner) => attributePartner(c, partner),
      )
    } catch (error) {
      if (error instanceof PartnerUnavailableError) {
        return hostedErrorPage(c, unavailablePage.title, unavailablePage.message, 403)
      }
      if (!(error instanceof EmbedLinkError)) throw error
      const { title, message, status } = linkProblemPage(error.problem)
      return hostedErrorPage(c, title, message, status)
    }
    const { onboarding: row, partner, origins } = page
    warnIfFramingRefused(c, s, 'hosted onboarding page', partner, origins)
    const nonce = s.random.token(22)
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
          redirectUri: page.redirectUri,
          currentStep: currentStep(row) ?? 'result',
          finished: row.flow_result ? flowResult(row) : null,
          state: presentFlowStatus(row, page.card),
          partnerName: partner?.display_name ?? 'the app',
        },
        nonce,
      ),
    )
  })

  // One operation per step, each with its own typed body (the URL is the same as ever).
  for (const [step, body, summary] of stepBodies) {
    app.openapi(
      accessRoute('onboarding', {
        method: 'post',
        path: `/onboarding/{onboardingId}/steps/${step}`,
        operationId: stepOperationIds[step],
        tags,
        summary: `${summary} (a step of the hosted flow, posted by the hosted page)`,
        description:
          'Steps go in order: identity_verification, underwriting, agreement (409 out of order). The answer says the next step, or the outcome when the flow ends.',
        request: { params: z.object({ onboardingId: OnboardingId }), body: jsonBody(body) },
        responses: {
          200: jsonResponse(StepResult, 'The step was recorded.'),
          ...errorResponses(400, 401, 403, 409, 413, 415),
        },
      }),
      async (c) => {
        const { onboardingId } = c.req.valid('param')
        const next = await withBearer(
          s.onboarding.submitStep(
            onboardingId,
            bearer(c.req.header('authorization')),
            step,
            c.req.valid('json'),
            (partner) => attributePartner(c, partner),
          ),
        )
        return c.json(presentStep(step, next), 200)
      },
    )
  }

  app.openapi(
    accessRoute('onboarding', {
      method: 'get',
      path: '/onboarding/{onboardingId}/status',
      operationId: 'getOnboardingFlowStatus',
      tags,
      summary: 'The state of this onboarding (used by the hosted page while it waits)',
      description:
        "Only this onboarding: its status, KYC status, the flow's result, whether it was completed, and the issued card's last four digits. The page polls it after the flow ends, until the partner completes the onboarding (or auto_complete does).",
      request: { params: z.object({ onboardingId: OnboardingId }) },
      responses: {
        200: jsonResponse(FlowStatus, "The onboarding's state."),
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => {
      const { onboarding, card } = await withBearer(
        s.onboarding.flowState(
          c.req.valid('param').onboardingId,
          bearer(c.req.header('authorization')),
          (partner) => attributePartner(c, partner),
        ),
      )
      return c.json(presentFlowStatus(onboarding, card), 200)
    },
  )

  // The page is public: the access token in its URL is the credential.
  return withAccess('public', app)
}
