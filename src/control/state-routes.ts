import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import type { Platform } from '../services/platform.js'
import { controlRoute, controlRouter, Ok } from './router.js'
import { Health, SnapshotDoc, SnapshotQuery } from './schemas.js'

/** Health, reset to the fixtures, and whole-state snapshot and restore. */
export function stateRoutes(s: { platform: Platform }) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/health',
      operationId: 'getSandboxHealth',
      summary: 'Health and basic facts',
      description:
        'Open even when an admin token guards the control plane, so container health checks need no secret; it reveals nothing a partner could misuse.',
      access: 'public',
      responses: {
        200: jsonResponse(Health, 'The sandbox is up.'),
        503: jsonResponse(
          Health,
          'Degraded, `problems` says why: the database (--database) is out of reach (every request needing it gets 503 with Retry-After until it is back), or writes are refused (507) because the data file cannot take them (a full disk: what to free; reads work, and writes are taken again by themselves once there is space).',
        ),
      },
    }),
    async (c) => {
      const health = await s.platform.health()
      return health.status === 'ok' ? c.json(health, 200) : c.json(health, 503)
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/reset',
      operationId: 'resetSandbox',
      summary: 'Reset all state to the fixtures',
      description:
        "Every partner's rows and clock as the fixtures hold them, the inbox emptied, and the sandbox clock back where it started (the machine's time, or the start scenario's clock). Removes every rule; keeps the request journal, sinks and loaded scenarios.",
      responses: {
        200: jsonResponse(Ok, 'State replaced by the fixtures.'),
        ...errorResponses(401),
      },
    }),
    async (c) => {
      await s.platform.reset()
      return c.json({ ok: true as const, message: 'All state was reset to the fixtures.' }, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/snapshot',
      operationId: 'exportSandboxSnapshot',
      summary: 'Export the whole state',
      description:
        'Key material is redacted ("[redacted]"): the session signing key, webhook signing secrets and the code hashes keyed by that key; ?include_secrets=true includes them. Password and API-secret hashes (scrypt) are included, plain secrets never. Restore it with POST /_sandbox/snapshot: redacted values keep the current ones.',
      request: { query: SnapshotQuery },
      responses: {
        200: jsonResponse(SnapshotDoc, 'The state.'),
        ...errorResponses(400, 401),
      },
    }),
    async (c) =>
      c.json(await s.platform.export(c.req.valid('query').include_secrets === 'true'), 200),
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/snapshot',
      operationId: 'restoreSandboxSnapshot',
      summary: 'Restore a state exported by GET /_sandbox/snapshot',
      description: 'Every row is validated first; on any error nothing changes.',
      request: { body: jsonBody(SnapshotDoc) },
      responses: {
        200: jsonResponse(Ok, 'State replaced.'),
        ...errorResponses(400, 401, 413, 415),
      },
    }),
    async (c) => {
      await s.platform.restore(c.req.valid('json'))
      return c.json({ ok: true as const, message: 'The snapshot was restored.' }, 200)
    },
  )

  return app
}
