import type { z } from 'zod'
import type { Deps } from '../deps.js'
import { ApiError, type ErrorDetail, validationError } from '../errors.js'
import { humanMessage, valueAt } from '../http/issue-messages.js'
import type { OperationIndex } from '../openapi/operations.js'
import type { OverrideRow, overrideMatch, overrideResponse } from '../store/records-overrides.js'
import { requirePartner } from './partners.js'

/**
 * Response overrides: chosen answers for matching partner API requests, per partner or for
 * every partner, kept in the store (snapshot, restore and reset include them). Each is
 * checked against the API's contract when it is made (see `contractProblem`).
 */

/** Overrides one partner (or the global list) may hold at once. */
export const OVERRIDE_CAP = 100

export interface OverrideInput {
  match: z.infer<typeof overrideMatch>
  respond: z.infer<typeof overrideResponse>
  times?: number
  priority?: number
  off_contract?: boolean
}

const GLOBAL = '*'

export function listOverrides(deps: Deps, partnerId: string | null): OverrideRow[] {
  if (partnerId !== null) requirePartner(deps, partnerId)
  return ordered(deps.store.lookup('overrides', 'overrides_by_partner', partnerId ?? GLOBAL))
}

/** Highest priority first; among equals, the newest first. */
export const ordered = (rows: OverrideRow[]) =>
  rows.sort((a, b) => b.priority - a.priority || b.seq - a.seq)

export function createOverride(
  deps: Deps,
  operations: OperationIndex,
  partnerId: string | null,
  input: OverrideInput,
): OverrideRow {
  if (partnerId !== null) requirePartner(deps, partnerId)
  const key = partnerId ?? GLOBAL
  if (deps.store.count('overrides', 'overrides_by_partner', key) >= OVERRIDE_CAP) {
    throw new ApiError(
      'conflict',
      `${partnerId === null ? 'The global list' : `Partner ${partnerId}`} already has ${OVERRIDE_CAP} overrides, the most it may hold; remove some (DELETE …/overrides/{overrideId}) first.`,
    )
  }
  if (operations.find(input.match.method, input.match.path)?.access === 'public') {
    throw validationError(
      'match.path',
      'is a public route: it takes no partner credentials, and overrides answer only requests authenticated as a partner',
    )
  }
  const { operation, problem, details } = contractProblem(operations, input.match, input.respond)
  if (problem && !input.off_contract) {
    throw new ApiError(
      'validation_error',
      `The override breaks the API's contract: ${problem}. Fix it, or set off_contract: true to serve it anyway.`,
      { details },
    )
  }
  let seq = 0
  for (const row of deps.store.all('overrides')) if (row.seq >= seq) seq = row.seq + 1
  const clock = partnerId === null ? deps.clock : deps.clocks.forPartner(partnerId)
  const row: OverrideRow = {
    id: deps.random.id('ovr'),
    partner_id: partnerId,
    match: input.match,
    respond: input.respond,
    remaining: input.times ?? null,
    priority: input.priority ?? 0,
    off_contract: input.off_contract ?? false,
    contract_problem: problem ?? null,
    operation_id: operation?.operationId ?? null,
    seq,
    created_at: clock.iso(),
  }
  deps.store.put('overrides', row)
  return row
}

export function removeOverride(deps: Deps, partnerId: string | null, overrideId: string): void {
  if (partnerId !== null) requirePartner(deps, partnerId)
  const row = deps.store.get('overrides', overrideId)
  if (!row || row.partner_id !== partnerId) {
    throw new ApiError(
      'not_found',
      `No override ${overrideId} ${partnerId === null ? 'in the global list' : `for partner ${partnerId}`}.`,
    )
  }
  deps.store.remove('overrides', overrideId)
}

/**
 * What is wrong with serving `respond` for `match` by the API's own declarations: no such
 * operation, a status it does not document, or a body its schema refuses (each field named).
 */
export function contractProblem(
  operations: OperationIndex,
  match: OverrideInput['match'],
  respond: OverrideInput['respond'],
): {
  operation?: ReturnType<OperationIndex['find']>
  problem?: string
  details?: ErrorDetail[]
} {
  const operation = operations.find(match.method, match.path)
  const at = (field: string, message: string): ErrorDetail => ({ field, message, location: 'body' })
  if (!operation) {
    const problem = `no operation of the API is ${match.method} ${match.path}`
    return { problem, details: [at('match.path', problem)] }
  }
  const name = `${operation.method} ${operation.path}`
  if (!operation.responses.has(respond.status)) {
    const documented = [...operation.responses.keys()].join(', ')
    const problem = `${name} does not answer ${respond.status} (it documents ${documented})`
    return { operation, problem, details: [at('respond.status', problem)] }
  }
  const schema = operation.responses.get(respond.status)
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
