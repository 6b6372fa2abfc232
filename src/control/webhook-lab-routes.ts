import { z } from '@hono/zod-openapi'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import * as ex from '../schemas/examples.js'
import { labVerdict } from '../schemas/fields.js'
import { WebhookIdParam } from '../schemas/webhooks.js'
import type { Webhooks } from '../services/webhooks.js'
import { labCheck, type WebhookLabRow } from '../store/records.js'
import { controlRoute, controlRouter } from './router.js'

export const ArmLabBody = z
  .object({
    checks: z
      .array(labCheck)
      .min(1)
      .max(4)
      .refine((c) => new Set(c).size === c.length, 'names each check at most once')
      .openapi({ example: ['duplicate', 'out_of_order', 'forged_signature', 'replay'] }),
  })
  .strict()
  .openapi('SandboxWebhookLabArm')

export const LabReport = z
  .object({
    webhook_id: z.string(),
    armed_at: z.string().openapi({ description: "Partner's time the checks were armed." }),
    checks: z.array(
      z.object({
        check: labCheck,
        event_id: z.string().nullable().openapi({ description: 'The event it acted on.' }),
        delivery_id: z
          .string()
          .nullable()
          .openapi({ description: 'The lab delivery (marked `lab` in the delivery log).' }),
        receiver_status: z
          .number()
          .int()
          .nullable()
          .openapi({ description: "The receiver's answer to it; null until attempted." }),
        verdict: labVerdict,
        why: z.string(),
      }),
    ),
  })
  .openapi('SandboxWebhookLabReport', {
    example: {
      webhook_id: ex.ids.webhook,
      armed_at: ex.times.funded,
      checks: [
        {
          check: 'forged_signature',
          event_id: ex.ids.event,
          delivery_id: 'dlv_4Xk9Qm2Tr7Lw1Zb6',
          receiver_status: 400,
          verdict: 'pass',
          why: 'answered 400: a forged signature is refused',
        },
      ],
    },
  })

const view = (row: WebhookLabRow) => ({
  webhook_id: row.id,
  armed_at: row.armed_at,
  checks: row.checks.map(({ after_delivery_id: _, ...c }) => c),
})

/**
 * The webhook lab of one endpoint (webhooks/lab.ts), by the partner API's webhook id: arm
 * checks on its next events, and read what its receiver did with them.
 */
export function webhookLabRoutes({ webhooks }: { webhooks: Webhooks }) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/webhooks/{id}/lab',
      operationId: 'armWebhookLab',
      summary: "Arm lab checks on an endpoint's next events (replaces its last report)",
      description:
        'duplicate: the next event again (same event id, new delivery id) after its delivery; out_of_order: the next event held and delivered after its successor; forged_signature: a copy with both signatures wrong; replay: a copy signed 600 s ago. Copies get one attempt. docs/webhook-lab.md.',
      request: { params: WebhookIdParam, body: jsonBody(ArmLabBody) },
      responses: {
        200: jsonResponse(LabReport, 'The report, every check pending.'),
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      return c.json(view(await webhooks.armLab(id, c.req.valid('json').checks)), 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/webhooks/{id}/lab',
      operationId: 'webhookLabReport',
      summary: 'The receiver report: each check, what the receiver answered, and the verdict',
      request: { params: WebhookIdParam },
      responses: {
        200: jsonResponse(LabReport, 'The report.'),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(view(await webhooks.labReport(c.req.valid('param').id)), 200),
  )
  return app
}
