import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { parseDuration, toMillis } from '../clock.js'
import type { AppEnv, Deps } from '../deps.js'
import {
  createPartner,
  publicPartner,
  requirePartner,
  setPartnerStatus,
} from '../domain/partners.js'
import { restoreSnapshot } from '../domain/snapshots.js'
import { validationError } from '../errors.js'
import { validationHook } from '../http/validation.js'
import { packageVersion } from '../package-root.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import {
  ClockFreeze,
  ClockMove,
  ClockState,
  CreatedPartner,
  CreatePartnerBody,
  Health,
  PartnerIdParam,
  PatchSandboxPartner,
  SandboxPartner,
  SnapshotDoc,
} from '../schemas/control.js'
import type { PartnerRow } from '../store/records.js'

const tags = ['Sandbox control']
const adminSecurity = [{ SandboxAdmin: [] }]
const ok = z.object({ ok: z.literal(true), message: z.string() })

const sandboxPartner = (p: PartnerRow) => ({ ...publicPartner(p), scenario: p.scenario })

/** The control plane (DESIGN.md section 4), outside /api/v1. */
export function controlRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  const startedAt = Date.now()

  app.openapi(
    createRoute({
      method: 'get',
      path: '/health',
      tags,
      summary: 'Health and basic facts',
      security: adminSecurity,
      responses: { 200: jsonResponse(Health, 'The sandbox is up.'), ...errorResponses(401) },
    }),
    (c) =>
      c.json(
        {
          status: 'ok' as const,
          version: packageVersion,
          now: deps.clock.iso(),
          uptime_s: Math.round((Date.now() - startedAt) / 1000),
          storage: deps.config.data ? ('file' as const) : ('memory' as const),
          scenario: deps.scenarios.default.name,
          partners: deps.store.all('partners').length,
        },
        200,
      ),
  )

  app.openapi(
    createRoute({
      method: 'post',
      path: '/reset',
      tags,
      summary: 'Reset all state to the fixtures',
      security: adminSecurity,
      responses: {
        200: jsonResponse(ok, 'State replaced by the fixtures.'),
        ...errorResponses(401),
      },
    }),
    async (c) => {
      await deps.store.reset()
      return c.json({ ok: true as const, message: 'All state was reset to the fixtures.' }, 200)
    },
  )

  app.openapi(
    createRoute({
      method: 'get',
      path: '/snapshot',
      tags,
      summary: 'Export the whole state',
      description:
        'Contains password and secret hashes (never plain secrets). Restore it with POST /_sandbox/snapshot.',
      security: adminSecurity,
      responses: { 200: jsonResponse(SnapshotDoc, 'The state.'), ...errorResponses(401) },
    }),
    (c) => c.json(deps.store.export(), 200),
  )

  app.openapi(
    createRoute({
      method: 'post',
      path: '/snapshot',
      tags,
      summary: 'Restore a state exported by GET /_sandbox/snapshot',
      description: 'Every row is validated first; on any error nothing changes.',
      security: adminSecurity,
      request: { body: jsonBody(SnapshotDoc) },
      responses: {
        200: jsonResponse(ok, 'State replaced.'),
        ...errorResponses(400, 401, 413, 415),
      },
    }),
    async (c) => {
      await restoreSnapshot(deps, c.req.valid('json'))
      return c.json({ ok: true as const, message: 'The snapshot was restored.' }, 200)
    },
  )

  app.openapi(
    createRoute({
      method: 'get',
      path: '/partners',
      tags,
      summary: 'List partners',
      security: adminSecurity,
      responses: {
        200: jsonResponse(z.object({ data: z.array(SandboxPartner) }), 'Every partner.'),
        ...errorResponses(401),
      },
    }),
    (c) => c.json({ data: deps.store.all('partners').map(sandboxPartner) }, 200),
  )

  app.openapi(
    createRoute({
      method: 'post',
      path: '/partners',
      tags,
      summary: 'Create a partner with fresh test credentials',
      description:
        'The unit of isolation for parallel tests: one partner per test worker, optionally with its own scenario.',
      security: adminSecurity,
      request: { body: jsonBody(CreatePartnerBody) },
      responses: {
        201: jsonResponse(CreatedPartner, 'The partner and its credentials.'),
        ...errorResponses(400, 401, 409, 415),
      },
    }),
    async (c) => {
      const { partner, api_key, api_secret, webhook_secret } = await createPartner(
        deps,
        c.req.valid('json'),
      )
      const scenario = deps.scenarios.forPartner(partner).name
      return c.json(
        {
          partner: publicPartner(partner),
          api_key,
          api_secret,
          scenario,
          ...(webhook_secret ? { webhook_secret } : {}),
        },
        201,
      )
    },
  )

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/partners/{id}',
      tags,
      summary: "Set a partner's status, scenario or rate limit",
      security: adminSecurity,
      request: { params: PartnerIdParam, body: jsonBody(PatchSandboxPartner) },
      responses: {
        200: jsonResponse(SandboxPartner, 'The partner.'),
        ...errorResponses(400, 401, 404, 415),
      },
    }),
    (c) => {
      const { id } = c.req.valid('param')
      const patch = c.req.valid('json')
      if (patch.scenario) deps.scenarios.resolve(patch.scenario)
      let partner = patch.status
        ? setPartnerStatus(deps, id, patch.status)
        : requirePartner(deps, id)
      if (patch.scenario !== undefined || patch.rate_limit !== undefined) {
        partner = {
          ...partner,
          ...(patch.scenario !== undefined ? { scenario: patch.scenario } : {}),
          ...(patch.rate_limit !== undefined ? { rate_limit: patch.rate_limit } : {}),
          updated_at: deps.clock.iso(),
        }
        deps.store.put('partners', partner)
      }
      return c.json(sandboxPartner(partner), 200)
    },
  )

  app.openapi(
    createRoute({
      method: 'get',
      path: '/clock',
      tags,
      summary: 'Read the sandbox clock',
      security: adminSecurity,
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(401) },
    }),
    (c) => c.json(deps.clock.state(), 200),
  )

  app.openapi(
    createRoute({
      method: 'post',
      path: '/clock/freeze',
      tags,
      summary: 'Freeze the clock (at a time, or now)',
      security: adminSecurity,
      request: {
        body: { required: false, content: { 'application/json': { schema: ClockFreeze } } },
      },
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const { at } = c.req.valid('json')
      // Freeze first: with the clock running, a set() then freeze() would drift by the
      // milliseconds in between.
      deps.clock.freeze()
      if (at && toMillis(at) !== deps.clock.now()) await deps.clock.set(toMillis(at))
      return c.json(deps.clock.state(), 200)
    },
  )

  app.openapi(
    createRoute({
      method: 'post',
      path: '/clock/unfreeze',
      tags,
      summary: 'Let the clock run again from its current time',
      security: adminSecurity,
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(401) },
    }),
    (c) => {
      deps.clock.unfreeze()
      return c.json(deps.clock.state(), 200)
    },
  )

  app.openapi(
    createRoute({
      method: 'post',
      path: '/clock/advance',
      tags,
      summary: 'Move the clock forward (by a duration) or to a time',
      description:
        'Everything that falls due on the way (expiries, settlements, retries) runs before the response.',
      security: adminSecurity,
      request: { body: jsonBody(ClockMove) },
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const { by, to } = c.req.valid('json')
      if (to !== undefined) {
        await deps.clock.set(toMillis(to))
      } else {
        let ms: number
        try {
          ms = parseDuration(by as string | number)
        } catch (error) {
          throw validationError('by', (error as Error).message)
        }
        await deps.clock.advance(ms)
      }
      return c.json(deps.clock.state(), 200)
    },
  )

  return app
}
