import { z } from '@hono/zod-openapi'
import { flowEnds } from '../domain/flow-walk.js'
import { flowResult } from '../domain/onboarding-flow.js'
import { presentCompletion } from '../routes/onboarding-views.js'
import { Completion } from '../schemas/cards.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { FlowMessage } from '../schemas/embed-steps.js'
import { OnboardingId } from '../schemas/ids.js'
import type { Onboarding } from '../services/onboarding.js'
import { controlRoute, controlRouter } from './router.js'

const CompleteFlowBody = z.object({}).strict().openapi('SandboxCompleteOnboarding', { example: {} })

export const WalkBody = z
  .object({
    end: z.enum(flowEnds).default('passed').openapi({
      description:
        "`passed`: the user confirms, answers and accepts (the sandbox's own decision, magic values and scenario rules, still ends the flow where the page would); `failed`: the provider declines at the next check (KYC, or underwriting once identity is verified); `agreement_declined`: the user declines the card agreement.",
    }),
  })
  .strict()
  .openapi('SandboxWalkOnboarding', { example: { end: 'passed' } })

export const WalkedOnboarding = z
  .object({
    onboardingId: z.uuid(),
    steps: z
      .array(z.enum(['identity_verification', 'underwriting', 'agreement']))
      .openapi({ description: 'The steps this walk took, in order.' }),
    status: z.string(),
    completed: z
      .boolean()
      .openapi({ description: "The partner's auto_complete completed it after the walk." }),
    card: z.object({ id: z.string(), last4: z.string(), status: z.string() }).nullable(),
    flow: FlowMessage.openapi({
      description:
        "The message the hosted page would post to its host: forward `result`, `data` and `agreementAccepted` to the partner's completion.",
    }),
  })
  .openapi('SandboxWalkedOnboarding', {
    example: {
      onboardingId: '3f0c6a52-5d1e-4b8a-9c2f-7e4d1a0b9c83',
      steps: ['identity_verification', 'underwriting', 'agreement'],
      status: 'in_progress',
      completed: false,
      card: null,
      flow: {
        type: 'partner-sandbox:onboarding',
        version: 1,
        onboardingId: '3f0c6a52-5d1e-4b8a-9c2f-7e4d1a0b9c83',
        result: 'pass',
        outcome: 'approved',
        reason: null,
        agreementAccepted: true,
        data: { onboardingId: '3f0c6a52-5d1e-4b8a-9c2f-7e4d1a0b9c83', outcome: 'approved' },
      },
    },
  })

/**
 * The hosted flow's end without a browser, and its completion on the partner's behalf: the
 * headless walk a test's backend completes after, and the dashboard's "Complete" button (what
 * the partner's backend does with the page's message, through the same code as
 * POST /api/v1/partner/cards/onboarding/{id}/complete).
 */
export function controlOnboardingRoutes(s: { onboarding: Onboarding }) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/onboardings/{id}/walk',
      operationId: 'walkSandboxOnboarding',
      summary: 'Walk the hosted onboarding flow headlessly to a chosen end',
      description:
        "Posts the hosted page's steps from where the user is, as a person would, until the flow ends: then the partner's completion (`POST /api/v1/partner/cards/onboarding/{onboardingId}/complete`) takes the flow's `result` and `agreementAccepted`. With the partner's `auto_complete` on, it completes too. 409 when the flow already ended or the onboarding is no longer pending.",
      request: {
        params: z.object({ id: OnboardingId }),
        body: { ...jsonBody(WalkBody), required: false },
      },
      responses: {
        200: jsonResponse(WalkedOnboarding, 'The steps taken and the message of the ended flow.'),
        ...errorResponses(400, 401, 404, 409, 415),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const body = (c.req.valid('json') ?? {}) as Partial<z.infer<typeof WalkBody>>
      const walked = await s.onboarding.walk(id, body.end ?? 'passed')
      const { onboarding, card } = walked
      return c.json(
        {
          onboardingId: onboarding.id,
          steps: walked.steps,
          status: onboarding.status,
          completed: onboarding.completion !== null,
          card: card ? { id: card.id, last4: card.last4, status: card.status } : null,
          flow: flowResult(onboarding),
        },
        200,
      )
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/onboardings/{id}/complete',
      operationId: 'completeSandboxOnboarding',
      summary: 'Complete an onboarding whose hosted flow ended, as the partner would',
      description:
        "Sends what the hosted page sent to the app (`result`, `data`, `agreement_accepted`) to the partner's completion: same card, events and webhooks. 409 while the flow has not ended.",
      request: {
        params: z.object({ id: OnboardingId }),
        body: { ...jsonBody(CompleteFlowBody), required: false },
      },
      responses: {
        200: jsonResponse(Completion, 'The completion result, as the API answers it.'),
        ...errorResponses(400, 401, 404, 409, 415),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      return c.json(presentCompletion(await s.onboarding.completeFromFlow(id)), 200)
    },
  )

  return app
}
