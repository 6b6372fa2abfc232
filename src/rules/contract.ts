import type { ErrorDetail } from '../errors.js'
import { humanMessage, valueAt } from '../http/issue-messages.js'
import type { OperationIndex } from '../openapi/operations.js'
import type { RuleInput, ScenarioRule } from './rule-schema.js'

/** Error statuses any route may answer with the sandbox's envelope (the platform's own). */
export const PLATFORM_ERRORS: readonly number[] = [429, 500, 502, 503, 504]

/**
 * What is wrong with serving `respond` for `match` by the API's own declarations: no such
 * operation, a status it does not document, or a body its schema refuses (each field named).
 * An error answer without a body is the sandbox's own envelope: one of the platform's errors
 * (PLATFORM_ERRORS) fits any route, as the old faults did; another must be documented.
 */
export function contractProblem(
  operations: OperationIndex,
  match: RuleInput['match'],
  respond: RuleInput['respond'],
): {
  operation?: ReturnType<OperationIndex['find']>
  problem?: string
  details?: ErrorDetail[]
} {
  const operation = match.method ? operations.find(match.method, match.path) : undefined
  if (!respond) return { operation }
  const envelope = respond.body === undefined && respond.status >= 400
  if (envelope && PLATFORM_ERRORS.includes(respond.status)) return { operation }
  const at = (field: string, message: string): ErrorDetail => ({ field, message, location: 'body' })
  if (!operation) {
    const problem = match.method
      ? `no operation of the API is ${match.method} ${match.path}`
      : `a rule that answers ${respond.status} names its operation: give match.method and a path of one route`
    return { problem, details: [at(match.method ? 'match.path' : 'match.method', problem)] }
  }
  const name = `${operation.method} ${operation.path}`
  if (!operation.responses.has(respond.status)) {
    const documented = [...operation.responses.keys()].join(', ')
    const problem = `${name} does not answer ${respond.status} (it documents ${documented})`
    return { operation, problem, details: [at('respond.status', problem)] }
  }
  const schema = operation.responses.get(respond.status)
  if (envelope) return { operation }
  if (!schema) {
    if (respond.body === undefined) return { operation }
    const problem = `${name} answers ${respond.status} without a body`
    return { operation, problem, details: [at('respond.body', problem)] }
  }
  const parsed = schema.safeParse(respond.body)
  if (parsed.success) return { operation }
  const details = parsed.error.issues.map((issue) => {
    const { value, present } = valueAt(respond.body, issue.path)
    const field = ['respond', 'body', ...issue.path.map(String)].join('.')
    return at(field, humanMessage(issue, value, present))
  })
  const problem = `the ${respond.status} body of ${name} does not fit its schema: ${details
    .map((d) => `${d.field} ${d.message}`)
    .join('; ')}`
  return { operation, problem, details }
}

/**
 * Where a scenario's rules break the API's contract, each field named under `rules.<n>`: a
 * scenario is held to what a rule added through the control plane is, so its answers say
 * only what the real service could, unless a rule says `off_contract: true`.
 */
export function scenarioRuleProblems(
  operations: OperationIndex,
  rules: readonly ScenarioRule[] | undefined,
): ErrorDetail[] {
  return (rules ?? []).flatMap((rule, index) => {
    if (rule.off_contract) return []
    const { details = [] } = contractProblem(operations, rule.match, rule.respond)
    return details.map((detail) => ({ ...detail, field: `rules.${index}.${detail.field}` }))
  })
}

/** The refusal of a scenario whose rules break the contract (`where`: what gave it). */
export const scenarioContractMessage = (where: string, details: ErrorDetail[]) =>
  `${where}: its rules break the API's contract: ${details
    .map((d) => `${d.field} ${d.message}`)
    .join('; ')}. Fix them, or set off_contract: true on a rule to serve it anyway.`
