import type { Clock } from '../clock.js'
import { ApiError, validationError } from '../errors.js'
import type { OperationIndex } from '../openapi/operations.js'
import type { Random } from '../random.js'
import { contractProblem } from '../rules/contract.js'
import { live, type RuleEffect, type RuleInput, type RuleRow } from '../rules/rule-schema.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { PartnerClocks } from './partner-clocks.js'

/**
 * Rules made through the control plane, per partner or for every partner, kept in the state
 * (snapshot, restore and reset include them). A rule's answer is checked against the API's
 * contract when it is made (rules/contract.ts).
 */

/** Rules one partner (or the global list) may hold at once. */
export const RULE_CAP = 100

/** What making a rule uses: ids and the time (the partner's own clock, or the sandbox's). */
export interface RulesCtx {
  random: Random
  clock: Clock
  clocks: PartnerClocks
}

/** The key of the global list in `rules_by_partner`. */
export const GLOBAL = '*'

/** A partner's made rules (or the global ones, for null) with requests left, in their order. */
export async function listRules(reader: StateReader, partnerId: string | null) {
  const rows = await reader.lookup('rules_by_partner', partnerId ?? GLOBAL)
  return ordered(rows.filter((row) => row.scenario === null && live(row)))
}

/** Highest priority first; among equals, the newest first. */
export const ordered = (rows: RuleRow[]) =>
  rows.sort((a, b) => b.priority - a.priority || b.seq - a.seq)

/** Checks a rule against the cap, the public routes and the contract, and adds it. */
export async function createRule(
  ctx: RulesCtx,
  tx: StateTx,
  operations: OperationIndex,
  partnerId: string | null,
  input: RuleInput,
): Promise<RuleRow> {
  const key = partnerId ?? GLOBAL
  const kept = await tx.lookup('rules_by_partner', key)
  // A rule that met all its requests is kept only as long as there is room.
  for (const row of kept) if (!live(row)) tx.remove('rules', row.id)
  if (kept.filter(live).length >= RULE_CAP) {
    throw new ApiError(
      'conflict',
      `${partnerId === null ? 'The global list' : `Partner ${partnerId}`} already has ${RULE_CAP} rules, the most it may hold; remove some (DELETE …/rules/{ruleId}) first.`,
    )
  }
  const { method, path } = input.match
  if (method && operations.find(method, path)?.access === 'public') {
    throw validationError(
      'match.path',
      'is a public route: it takes no partner credentials, and rules meet only requests authenticated as a partner',
    )
  }
  const { operation, problem, details } = contractProblem(operations, input.match, input.respond)
  if (problem && !input.off_contract) {
    throw new ApiError(
      'validation_error',
      `The rule's answer breaks the API's contract: ${problem}. Fix it, or set off_contract: true to serve it anyway.`,
      { details },
    )
  }
  let seq = 0
  for (const row of await tx.all('rules')) if (row.seq >= seq) seq = row.seq + 1
  const clock = partnerId === null ? ctx.clock : ctx.clocks.forPartner(partnerId)
  const row: RuleRow = {
    id: ctx.random.id('rul'),
    partner_id: partnerId,
    ...effectOf(input),
    times: input.once ? 1 : (input.times ?? null),
    used: 0,
    rate: input.rate ?? null,
    priority: input.priority ?? 0,
    off_contract: input.off_contract ?? false,
    contract_problem: problem ?? null,
    operation_id: operation?.operationId ?? null,
    scenario: null,
    seq,
    created_at: clock.iso(),
  }
  tx.put('rules', row)
  return row
}

/** The match and effect columns of a rule's row. */
export const effectOf = (input: Pick<RuleInput, 'match' | keyof RuleEffect>) => ({
  match: input.match,
  respond: input.respond ?? null,
  drop_connection: input.drop_connection ?? false,
  decide: input.decide ?? null,
  latency_ms: input.latency_ms ?? null,
})

export async function removeRule(tx: StateTx, partnerId: string | null, ruleId: string) {
  const row = await tx.get('rules', ruleId)
  if (!row || row.partner_id !== partnerId || row.scenario !== null || !live(row)) {
    throw new ApiError(
      'not_found',
      `No rule ${ruleId} ${partnerId === null ? 'in the global list' : `for partner ${partnerId}`}.`,
    )
  }
  tx.remove('rules', ruleId)
}

/** Removes a partner's rules (or the global ones) and the counts of its scenarios' rules. */
export async function clearRules(tx: StateTx, partnerId: string | null) {
  for (const row of await tx.lookup('rules_by_partner', partnerId ?? GLOBAL))
    tx.remove('rules', row.id)
}
