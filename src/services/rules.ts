import { createHash } from 'node:crypto'
import type { Clock } from '../clock.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { partnerById } from '../domain/partners.js'
import {
  clearRules,
  createRule,
  effectOf,
  GLOBAL,
  listRules,
  ordered,
  removeRule,
} from '../domain/rules.js'
import type { OperationIndex } from '../openapi/operations.js'
import type { Random } from '../random.js'
import { live, type RuleInput, type RuleRow } from '../rules/rule-schema.js'
import type { Scenario } from '../scenarios/schema.js'
import type { State } from '../state/seam.js'
import type { PartnerRow } from '../store/records.js'

/** The rules read readAhead started, for the partner it guessed. */
export interface RulesAhead {
  partnerId: string
  rows: Promise<RuleRow[]>
}

/**
 * Rules (domain/rules.ts): made and removed through the control plane, and read by the gate
 * on every authenticated partner request in one read (the partner's, the global ones and the
 * counts of its scenarios' rules), so one made or removed through any process counts from the
 * next request. A counted rule's use is taken atomically (State.useRule).
 */
export class Rules {
  private readonly state: State
  private readonly ctx: { random: Random; clock: Clock; clocks: PartnerClocks }
  /** The partner each API key named when a request of it met rules (readAhead's guess). */
  private readonly partnerOfKey = new Map<string, string>()

  constructor(s: { state: State; random: Random; clock: Clock; clocks: PartnerClocks }) {
    this.state = s.state
    this.ctx = { random: s.random, clock: s.clock, clocks: s.clocks }
  }

  async list(partnerId: string | null): Promise<RuleRow[]> {
    if (partnerId !== null) await partnerById(this.state, partnerId)
    return listRules(this.state, partnerId)
  }

  create(operations: OperationIndex, partnerId: string | null, input: RuleInput) {
    return this.state.transaction(async (tx) => {
      if (partnerId !== null) await partnerById(tx, partnerId)
      return createRule(this.ctx, tx, operations, partnerId, input)
    })
  }

  remove(partnerId: string | null, ruleId: string): Promise<void> {
    return this.state.transaction(async (tx) => {
      if (partnerId !== null) await partnerById(tx, partnerId)
      await removeRule(tx, partnerId, ruleId)
    })
  }

  /** Removes every rule of a partner (or the global ones), its scenario rules' counts too. */
  clear(partnerId: string | null): Promise<void> {
    return this.state.transaction(async (tx) => {
      if (partnerId !== null) await partnerById(tx, partnerId)
      await clearRules(tx, partnerId)
    })
  }

  /**
   * The rules a request of `partner` can meet, in the order they are tried: its own and the
   * global ones with uses left (highest priority first, then the newest), then its scenario's
   * in the scenario's order, each with the uses this partner made of it. One read.
   */
  async candidates(
    partner: Pick<PartnerRow, 'id' | 'api_key'>,
    scenario: Scenario,
    ahead?: RulesAhead,
  ): Promise<RuleRow[]> {
    const partnerId = partner.id
    if (this.partnerOfKey.get(partner.api_key) !== partnerId) {
      if (this.partnerOfKey.size >= 10_000) this.partnerOfKey.clear()
      this.partnerOfKey.set(partner.api_key, partnerId)
    }
    const kept = await (ahead?.partnerId === partnerId ? ahead.rows : this.read(partnerId))
    const made = ordered(kept.filter((row) => row.scenario === null && live(row)))
    const fromScenario = scenarioRows(partnerId, scenario)
    if (fromScenario.length === 0) return made
    const counts = new Map(kept.filter((row) => row.scenario !== null).map((r) => [r.id, r]))
    return [
      ...made,
      ...fromScenario.map((row) => counts.get(row.id) ?? row).filter((row) => live(row)),
    ]
  }

  /**
   * Starts the read `candidates` makes for the partner `key` named when last admitted, so it
   * goes with the request's first reads (its partner's), in one statement on a database. The
   * key's partner is a guess: candidates takes these rows only for the partner the request's
   * credentials name, read in the same statement, and reads its own otherwise.
   */
  readAhead(key: string | undefined): RulesAhead | undefined {
    const partnerId = key === undefined ? undefined : this.partnerOfKey.get(key)
    if (partnerId === undefined) return undefined
    const rows = this.read(partnerId)
    // Nobody may take it (the credentials refused first): a failed read is not news.
    rows.catch(() => {})
    return { partnerId, rows }
  }

  private read(partnerId: string): Promise<RuleRow[]> {
    return this.state.lookupMany('rules_by_partner', [partnerId, GLOBAL])
  }

  /** Takes one use of a counted rule; false when another request took its last one. */
  use(row: RuleRow): Promise<boolean> {
    return this.state.useRule(row)
  }
}

/** A scenario's rules as rows of one partner: the row of a counted one keeps its uses. */
function scenarioRows(partnerId: string, scenario: Scenario): RuleRow[] {
  return (scenario.rules ?? []).map((rule, index) => {
    const name = `${scenario.name} rules[${index}]`
    // Its count is the partner's for this rule as written: a changed rule starts again at 0.
    const digest = createHash('sha256')
      .update(`${partnerId}|${name}|${JSON.stringify(rule)}`)
      .digest('base64url')
    return {
      id: `rul_s${digest.slice(0, 24)}`,
      partner_id: partnerId,
      ...effectOf(rule),
      times: rule.once ? 1 : (rule.times ?? null),
      used: 0,
      rate: rule.rate ?? null,
      priority: 0,
      off_contract: rule.off_contract ?? false,
      contract_problem: null,
      operation_id: null,
      scenario: name,
      seq: 0,
      created_at: new Date(0).toISOString(),
    }
  })
}
