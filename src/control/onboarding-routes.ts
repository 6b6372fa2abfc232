import { z } from '@hono/zod-openapi'
import { presentCompletion } from '../routes/onboarding-views.js'
import { Completion } from '../schemas/cards.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { OnboardingId } from '../schemas/ids.js'
import type { Onboarding } from '../services/onboarding.js'
import { controlRoute, controlRouter } from './router.js'

const CompleteFlowBody = z
  .object({
    result: z.enum(['pass', 'fail']).optional().openapi({
      description: "Defaults to the hosted flow's own result, as the page sent it to the app.",
    }),
  })
  .strict()
  .openapi('SandboxCompleteOnboarding', { example: {} })

/**
 * Completing an onboarding for the partner once its hosted flow ended (the dashboard's
 * "Complete" button): what the partner's backend does with the page's message, through the
 * same code as POST /api/v1/partner/cards/onboarding/{id}/complete.
 */
export function controlOnboardingRoutes(s: { onboarding: Onboarding }) {
  const app = controlRouter()

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
      const body = (c.req.valid('json') ?? {}) as z.infer<typeof CompleteFlowBody>
      return c.json(presentCompletion(await s.onboarding.completeFromFlow(id, body.result)), 200)
    },
  )

  return app
}
