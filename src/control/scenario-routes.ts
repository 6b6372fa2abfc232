import { z } from '@hono/zod-openapi'
import type { Clock } from '../clock.js'
import { pageOf, paginateInOrder } from '../domain/pagination.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { ApiError } from '../errors.js'
import { issuesToDetails } from '../http/validation.js'
import type { Random } from '../random.js'
import { faultRule } from '../scenarios/faults.js'
import type { LoadedScenarios } from '../scenarios/loaded-scenarios.js'
import { describeIssues, listBundledScenarios } from '../scenarios/loader.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { scenarioSchema } from '../scenarios/schema.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { controlPageQuery } from '../schemas/limit.js'
import type { Faults } from '../services/faults.js'
import type { StateReader } from '../state/seam.js'
import { controlRoute, controlRouter } from './router.js'

export const ScenarioSummary = z
  .object({
    name: z.string(),
    description: z.string().nullable(),
    bundled: z.boolean(),
  })
  .openapi({
    example: { name: 'kyc-fail', description: 'Every onboarding fails KYC.', bundled: true },
  })

const FaultBody = z
  .object({ partner_id: z.uuid().nullable().optional() })
  .passthrough()
  .openapi('SandboxFault', {
    description:
      'A fault rule: route ("POST /api/v1/partner/cards/*"), latency_ms (n or [min,max]), error_status (429, 500, 502, 503, 504) or drop_connection, rate (0-1), next (N); optionally partner_id.',
  })

export const RuntimeFault = z
  .object({
    id: z.string().openapi({ example: 'flt_3kq8e2' }),
    partner_id: z.uuid().nullable(),
    rule: faultRule,
    remaining: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Left of `next`; null: no limit.' }),
    created_at: z.string(),
  })
  .openapi('SandboxRuntimeFault', {
    example: {
      id: 'flt_3kq8e2',
      partner_id: null,
      rule: { route: 'POST /api/v1/partner/cards/simulate-fund', error_status: 503, next: 1 },
      remaining: 1,
      created_at: '2026-03-02T12:40:00.000Z',
    },
  })

/** What the scenario routes use. */
export interface ScenarioRoutesParts {
  state: StateReader
  scenarios: ScenarioRegistry
  loadedScenarios: LoadedScenarios
  clock: Clock
  clocks: PartnerClocks
  random: Random
  faults: Faults
}

/** Control-plane routes of the scenario engine: scenarios and faults. */
export function controlScenarioRoutes(s: ScenarioRoutesParts) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/scenarios',
      operationId: 'listScenarios',
      summary: 'Bundled and loaded scenarios, and the sandbox-wide one',
      responses: {
        200: jsonResponse(
          z.object({
            default: z.string().openapi({ example: 'default' }),
            data: z.array(ScenarioSummary),
          }),
          'Scenarios.',
        ),
        ...errorResponses(401),
      },
    }),
    (c) => {
      const bundled = listBundledScenarios()
      const names = new Set(bundled.map((s) => s.name))
      const extra = s.scenarios.registered().filter((x) => !names.has(x.name))
      return c.json(
        {
          default: s.scenarios.default.name,
          data: [
            ...bundled.map((s) => ({
              name: s.name,
              description: s.description ?? null,
              bundled: true,
            })),
            ...extra.map((s) => ({
              name: s.name,
              description: s.description ?? null,
              bundled: false,
            })),
          ],
        },
        200,
      )
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/scenarios',
      operationId: 'loadScenario',
      summary: 'Load a scenario (validated; a bad one is refused with the path of each bad value)',
      description:
        'Give it to a partner with PATCH /_sandbox/partners/{id} { scenario }, make it the default with PUT /_sandbox/scenario, or name it in X-Sandbox-Scenario.',
      request: {
        body: jsonBody(
          z
            .record(z.string(), z.unknown())
            .openapi({ description: 'A scenario document (see scenarios/scenario.schema.json).' }),
        ),
      },
      responses: {
        201: jsonResponse(z.object({ scenario: ScenarioSummary }), 'Loaded.'),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const body = c.req.valid('json')
      const parsed = scenarioSchema.safeParse(body)
      if (!parsed.success) {
        throw new ApiError(
          'validation_error',
          `The scenario is invalid: ${describeIssues(parsed.error, body)}`,
          { details: issuesToDetails(parsed.error, 'json', body, '(root)') },
        )
      }
      await s.loadedScenarios.load(parsed.data)
      return c.json(
        {
          scenario: {
            name: parsed.data.name,
            description: parsed.data.description ?? null,
            bundled: false,
          },
        },
        201,
      )
    },
  )

  app.openapi(
    controlRoute({
      method: 'put',
      path: '/scenario',
      operationId: 'setDefaultScenario',
      summary: 'Switch the sandbox-wide scenario (partners without their own follow it)',
      request: {
        body: jsonBody(
          z
            .object({ name: z.string().min(1) })
            .strict()
            .openapi({ example: { name: 'happy-path' } }),
        ),
      },
      responses: {
        200: jsonResponse(
          z.object({ default: z.string() }).openapi({ example: { default: 'happy-path' } }),
          'Switched.',
        ),
        ...errorResponses(400, 401),
      },
    }),
    (c) => {
      s.scenarios.setDefault(s.scenarios.resolve(c.req.valid('json').name))
      return c.json({ default: s.scenarios.default.name }, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/faults',
      operationId: 'addFault',
      summary: 'Inject a fault into matching requests (all partners, or one)',
      request: { body: jsonBody(FaultBody) },
      responses: {
        201: jsonResponse(z.object({ fault: RuntimeFault }), 'The fault.'),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { partner_id, ...rest } = c.req.valid('json') as {
        partner_id?: string | null
      } & Record<string, unknown>
      if (partner_id && !(await s.state.get('partners', partner_id)))
        throw new ApiError('not_found', `No partner with id ${partner_id}.`)
      const parsed = faultRule.safeParse(rest)
      if (!parsed.success) {
        throw new ApiError(
          'validation_error',
          `The fault is invalid: ${describeIssues(parsed.error, rest)}`,
          { details: issuesToDetails(parsed.error, 'json', rest, '(root)') },
        )
      }
      const fault = {
        id: s.random.id('flt'),
        partner_id: partner_id ?? null,
        rule: parsed.data,
        remaining: parsed.data.next ?? null,
        created_at: (partner_id ? s.clocks.forPartner(partner_id) : s.clock).iso(),
      }
      await s.faults.add(fault)
      return c.json({ fault }, 201)
    },
  )

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/faults',
      operationId: 'listFaults',
      summary: 'Faults injected through the control plane',
      ...controlPageQuery('fault'),
      responses: {
        200: jsonResponse(pageOf(RuntimeFault), 'A page of faults.'),
        ...errorResponses(400, 401),
      },
    }),
    async (c) =>
      c.json(
        paginateInOrder(await s.faults.list(), c.req.valid('query'), (f) => f),
        200,
      ),
  )

  app.openapi(
    controlRoute({
      method: 'delete',
      path: '/faults',
      operationId: 'clearFaults',
      summary: 'Remove every injected fault (and reset scenario fault counters)',
      responses: {
        200: jsonResponse(z.object({ ok: z.literal(true) }), 'Removed.'),
        ...errorResponses(401),
      },
    }),
    async (c) => {
      await s.faults.clear()
      return c.json({ ok: true as const }, 200)
    },
  )

  return app
}
