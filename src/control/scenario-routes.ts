import { z } from '@hono/zod-openapi'
import type { Clock } from '../clock.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { ApiError } from '../errors.js'
import { issuesToDetails } from '../http/validation.js'
import type { OperationIndex } from '../openapi/operations.js'
import type { Random } from '../random.js'
import { scenarioContractMessage, scenarioRuleProblems } from '../rules/contract.js'
import { LOADED_SCENARIOS_CAP, type LoadedScenarios } from '../scenarios/loaded-scenarios.js'
import { describeIssues, listBundledScenarios } from '../scenarios/loader.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { SandboxScenario } from '../scenarios/sandbox-scenario.js'
import { SCENARIO_NAME, scenarioSchema } from '../scenarios/schema.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { documentedParam } from '../schemas/ids.js'
import type { StateReader } from '../state/seam.js'
import { controlRoute, controlRouter, Ok } from './router.js'

export const ScenarioSummary = z
  .object({
    name: z.string(),
    description: z.string().nullable(),
    bundled: z.boolean(),
  })
  .openapi({
    example: { name: 'kyc-fail', description: 'Every onboarding fails KYC.', bundled: true },
  })

/** What the scenario routes use. */
export interface ScenarioRoutesParts {
  state: StateReader
  scenarios: ScenarioRegistry
  loadedScenarios: LoadedScenarios
  sandboxScenario: Pick<SandboxScenario, 'choose'>
  clock: Clock
  clocks: PartnerClocks
  random: Random
}

/** Control-plane routes of the scenario engine (rules have their own: rule-routes.ts). */
export function controlScenarioRoutes(s: ScenarioRoutesParts, operations: OperationIndex) {
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
          z.record(z.string(), z.unknown()).openapi({
            description:
              "A scenario document (see scenarios/scenario.schema.json). Its rules are held to the API's contract as rules added here are (400 naming rules.<n>.…), unless a rule says off_contract: true.",
          }),
        ),
      },
      responses: {
        201: jsonResponse(z.object({ scenario: ScenarioSummary }), 'Loaded.'),
        ...errorResponses(400, 401, 409),
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
      const details = scenarioRuleProblems(operations, parsed.data.rules)
      if (details.length > 0)
        throw new ApiError('validation_error', scenarioContractMessage('The scenario', details), {
          details,
        })
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
      method: 'delete',
      path: '/scenarios/{name}',
      operationId: 'deleteScenario',
      summary: 'Delete a loaded scenario',
      description: `A sandbox keeps at most ${LOADED_SCENARIOS_CAP} loaded scenarios. One a partner names, or the sandbox-wide one, is refused (409) until another is given; a bundled scenario of the same name is the one the name gives again.`,
      request: {
        params: z.object({
          name: documentedParam(
            z.string().regex(SCENARIO_NAME, 'lowercase letters, digits and dashes'),
            'qa-kyc-fail',
            'The name the scenario was loaded under.',
          ),
        }),
      },
      responses: {
        200: jsonResponse(Ok, 'Deleted.'),
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const { name } = c.req.valid('param')
      await s.loadedScenarios.remove(name)
      return c.json({ ok: true as const, message: `The scenario ${name} was deleted.` }, 200)
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
    async (c) => {
      const scenario = s.scenarios.resolve(c.req.valid('json').name)
      await s.sandboxScenario.choose(scenario)
      return c.json({ default: scenario.name }, 200)
    },
  )

  return app
}
