import type { z } from 'zod'
import type { Clock } from '../clock.js'
import { ApiError, type ErrorDetail, validationError } from '../errors.js'
import { humanMessage, valueAt } from '../http/issue-messages.js'
import type { OperationIndex } from '../openapi/operations.js'
import type { Random } from '../random.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { OverrideRow, overrideMatch, overrideResponse } from '../store/records-overrides.js'
import type { PartnerClocks } from './partner-clocks.js'

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

/** What making an override uses: ids and the time (the partner's own clock, or the sandbox's). */
export interface OverridesCtx {
  random: Random
  clock: Clock
  clocks: PartnerClocks
}

/** The key of the global list in `overrides_by_partner`. */
export const GLOBAL = '*'

/** A partner's overrides (or the global ones, for null) in the order they are tried. */
export async function listOverrides(
  reader: StateReader,
  partnerId: string | null,
): Promise<OverrideRow[]> {
  return ordered(await reader.lookup('overrides_by_partner', partnerId ?? GLOBAL))
}

/** Highest priority first; among equals, the newest first. */
export const ordered = (rows: OverrideRow[]) =>
  rows.sort((a, b) => b.priority - a.priority || b.seq - a.seq)

/** Checks an override against the cap, the public routes and the contract, and adds it. */
export async function createOverride(
  ctx: OverridesCtx,
  tx: StateTx,
  operations: OperationIndex,
  partnerId: string | null,
  input: OverrideInput,
): Promise<OverrideRow> {
  const key = partnerId ?? GLOBAL
  if ((await tx.count('overrides_by_partner', key)) >= OVERRIDE_CAP) {
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
  for (const row of await tx.all('overrides')) if (row.seq >= seq) seq = row.seq + 1
  const clock = partnerId === null ? ctx.clock : ctx.clocks.forPartner(partnerId)
  const row: OverrideRow = {
    id: ctx.random.id('ovr'),
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
  tx.put('overrides', row)
  return row
}

export async function removeOverride(
  tx: StateTx,
  partnerId: string | null,
  overrideId: string,
): Promise<void> {
  const row = await tx.get('overrides', overrideId)
  if (!row || row.partner_id !== partnerId) {
    throw new ApiError(
      'not_found',
      `No override ${overrideId} ${partnerId === null ? 'in the global list' : `for partner ${partnerId}`}.`,
    )
  }
  tx.remove('overrides', overrideId)
}

/**
 * Takes one answer of the first of `candidates` (in the order they are tried) that still has
 * one: with `times`, of two requests at once only one takes the last answer, and the other
 * goes on to the next candidate.
 */
export async function claimOverride(
  tx: StateTx,
  candidates: OverrideRow[],
): Promise<OverrideRow | undefined> {
  for (const override of candidates) {
    if (override.remaining === null) return override
    const current = await tx.get('overrides', override.id)
    if (!current) continue
    if (current.remaining === null) return override
    if (current.remaining <= 1) tx.remove('overrides', current.id)
    else tx.put('overrides', { ...current, remaining: current.remaining - 1 })
    return override
  }
  return undefined
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
