import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import type { Platform } from '../services/platform.js'
import { controlRoute, controlRouter, Ok } from './router.js'
import { PartnerIdParam, PartnerSnapshotDoc, SnapshotQuery } from './schemas.js'

/**
 * One partner's reset, delete, snapshot and restore: what a test worker needs to start clean
 * or go back to a saved state without touching any other partner.
 */
export function partnerStateRoutes(s: { platform: Platform }) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/partners/{id}/reset',
      operationId: 'resetPartner',
      summary: "Remove a partner's data, keeping its credentials and settings",
      description:
        'Removes its users, sessions, codes, onboardings, cards, transactions, deposits, disputes, bank accounts, webhook endpoints (but the primary one, which mirrors webhook_url), deliveries, events, pictures and inbox messages. Its credentials, settings and clock stay.',
      request: { params: PartnerIdParam },
      responses: {
        200: jsonResponse(Ok, "The partner's data was removed."),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      await s.platform.resetPartner(id)
      return c.json({ ok: true as const, message: `Partner ${id} was reset.` }, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'delete',
      path: '/partners/{id}',
      operationId: 'deletePartner',
      summary: 'Delete a partner and everything it owns',
      description: 'Its credentials fail from the next request on.',
      request: { params: PartnerIdParam },
      responses: {
        200: jsonResponse(Ok, 'The partner was deleted.'),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      await s.platform.deletePartner(id)
      return c.json({ ok: true as const, message: `Partner ${id} was deleted.` }, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/partners/{id}/snapshot',
      operationId: 'exportPartnerSnapshot',
      summary: "Export one partner's data",
      description:
        'Restore it with POST /_sandbox/partners/{id}/snapshot (redacted values keep the current ones). Key material (webhook signing secrets, code hashes) is redacted as "[redacted]" unless ?include_secrets=true; password and API-secret hashes (scrypt) are included, plain secrets never.',
      request: { params: PartnerIdParam, query: SnapshotQuery },
      responses: {
        200: jsonResponse(PartnerSnapshotDoc, "The partner's rows."),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const includeSecrets = c.req.valid('query').include_secrets === 'true'
      return c.json(await s.platform.exportPartner(id, includeSecrets), 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/partners/{id}/snapshot',
      operationId: 'restorePartnerSnapshot',
      summary: "Restore one partner's data from its snapshot",
      description:
        "Every row is checked first (schema, owned by this partner, no other partner's id, its user present); on any problem nothing changes. Only this partner's rows change; its credentials and settings stay, its clock is the snapshot's.",
      request: { params: PartnerIdParam, body: jsonBody(PartnerSnapshotDoc) },
      responses: {
        200: jsonResponse(Ok, "The partner's data was replaced."),
        ...errorResponses(400, 401, 404, 413, 415),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      await s.platform.restorePartner(id, c.req.valid('json'))
      return c.json({ ok: true as const, message: `Partner ${id} was restored.` }, 200)
    },
  )

  return app
}
