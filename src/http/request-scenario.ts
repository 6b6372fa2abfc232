import type { Context } from 'hono'
import { ApiError } from '../errors.js'
import type { OperationIndex } from '../openapi/operations.js'
import { scenarioContractMessage, scenarioRuleProblems } from '../rules/contract.js'
import { describeIssues } from '../scenarios/loader.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { type Scenario, scenarioSchema } from '../scenarios/schema.js'
import type { AppEnv } from './app-env.js'

const HEADER = 'x-sandbox-scenario'

const headerError = (message: string) =>
  new ApiError('validation_error', `X-Sandbox-Scenario: ${message}`, {
    details: [{ field: 'X-Sandbox-Scenario', message, location: 'header' }],
  })

/**
 * `X-Sandbox-Scenario` (as Prism's `Prefer` header): a scenario name, or a JSON object of
 * sections laid over the partner's scenario, for this one request only.
 */
export function requestedScenario(
  deps: {
    scenarios: Pick<ScenarioRegistry, 'forPartner' | 'resolve'>
    operations: OperationIndex
  },
  c: Context<AppEnv>,
): Scenario | undefined {
  {
    const value = c.req.header(HEADER)
    const partner = c.get('partner')
    if (!value || !partner) return undefined
    let scenario: Scenario
    if (value.trim().startsWith('{')) {
      let override: unknown
      try {
        override = JSON.parse(value)
      } catch {
        throw headerError('is neither a scenario name nor valid JSON')
      }
      const base = deps.scenarios.forPartner(partner)
      // Validated under the base's own name: "happy-path+request" is no valid scenario name.
      const merged = {
        ...base,
        ...(override as object),
        name: base.name,
        description: base.description,
      }
      const parsed = scenarioSchema.safeParse(merged)
      if (!parsed.success) throw headerError(`invalid override: ${describeIssues(parsed.error)}`)
      const problems = scenarioRuleProblems(deps.operations, parsed.data.rules)
      if (problems.length > 0)
        throw new ApiError(
          'validation_error',
          scenarioContractMessage('X-Sandbox-Scenario', problems),
          {
            details: problems.map((p) => ({
              ...p,
              field: `X-Sandbox-Scenario ${p.field}`,
              location: 'header',
            })),
          },
        )
      scenario = {
        ...parsed.data,
        name: `${base.name}+request`,
        description: `${base.description} (overridden for one request)`,
      }
    } else {
      try {
        scenario = deps.scenarios.resolve(value.trim())
      } catch (error) {
        throw headerError((error as Error).message)
      }
    }
    return scenario
  }
}
