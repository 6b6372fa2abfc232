import type { Random } from '../random.js'
import { type FaultRule, routeMatches } from '../scenarios/faults.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { Scenario } from '../scenarios/schema.js'
import type { State, StateTx } from '../state/seam.js'
import type { RuntimeFaultRow } from '../store/records-journal.js'

/** The fault that fires for a request, and the rule it came from (for the journal). */
export interface PickedFault {
  rule: FaultRule
  name: string
}

interface Asked {
  partner: { id: string; scenario: string | null }
  scenario: Scenario
  method: string
  path: string
}

const INDEX = 'runtime_faults_in_order'

/**
 * Faults injected into partner API requests: those of the partner's scenario and those added
 * at run time through the control plane (the seam's `runtime_faults`, ephemeral), and how
 * many requests each rule with `next` has taken (`runtime_faults.remaining`, `fault_uses`).
 *
 * The gate asks on every request, and the runtime faults are read in it (one added or removed
 * through any process counts from the next request). Only a request a counted rule (`next`)
 * matches opens a transaction: it chooses and counts in it, so two requests at once never
 * both take the last one.
 */
export class Faults {
  private readonly state: State
  private readonly random: Random
  private readonly scenarios: ScenarioRegistry

  constructor(s: { state: State; random: Random; scenarios: ScenarioRegistry }) {
    this.state = s.state
    this.random = s.random
    this.scenarios = s.scenarios
  }

  /** Adds a fault made by the control plane. */
  add(fault: RuntimeFaultRow): Promise<void> {
    return this.state.transaction(async (tx) => tx.put('runtime_faults', fault))
  }

  /** The runtime faults, in the order they were added (and are tried). */
  list(): Promise<RuntimeFaultRow[]> {
    return this.state.range(INDEX, '*')
  }

  /** Removes every runtime fault and every count of the scenarios' `next` rules. */
  clear(): Promise<void> {
    return this.state.transaction(async (tx) => {
      for (const row of await tx.all('runtime_faults')) tx.remove('runtime_faults', row.id)
      for (const row of await tx.all('fault_uses')) tx.remove('fault_uses', row.id)
    })
  }

  /**
   * The first rule that fires for this request: the runtime faults in order, then the
   * scenario's.
   */
  async pick(
    partner: Asked['partner'],
    method: string,
    path: string,
  ): Promise<PickedFault | undefined> {
    const asked: Asked = { partner, scenario: this.scenarios.forPartner(partner), method, path }
    const rows = await this.state.range(INDEX, '*')
    return counted(rows, asked) ? this.pickCounted(asked) : this.choose(rows, asked)
  }

  private pickCounted(asked: Asked): Promise<PickedFault | undefined> {
    return this.state.transaction(async (tx) => {
      const rows = await tx.range(INDEX, '*')
      const uses = new Map<string, number>()
      for (const [index, rule] of (asked.scenario.faults ?? []).entries()) {
        if (rule.next === undefined || !routeMatches(rule.route, asked.method, asked.path)) continue
        const key = useKey(asked, index)
        uses.set(key, (await tx.get('fault_uses', key))?.count ?? 0)
      }
      return this.choose(rows, asked, { tx, uses })
    })
  }

  /** Today's order of checks and dice: with `counting`, the counts are read and written. */
  private choose(
    rows: RuntimeFaultRow[],
    asked: Asked,
    counting?: { tx: StateTx; uses: Map<string, number> },
  ): PickedFault | undefined {
    const { scenario, method, path } = asked
    const roll = () => this.random.int(0, 999_999) / 1_000_000
    for (const fault of rows) {
      if (!applies(fault, asked)) continue
      if (fault.remaining !== null && fault.remaining <= 0) continue
      if (fault.rule.rate !== undefined && roll() >= fault.rule.rate) continue
      if (fault.remaining !== null)
        counting?.tx.put('runtime_faults', { ...fault, remaining: fault.remaining - 1 })
      return { rule: fault.rule, name: fault.id }
    }
    for (const [index, rule] of (scenario.faults ?? []).entries()) {
      if (!routeMatches(rule.route, method, path)) continue
      const key = useKey(asked, index)
      const used = counting?.uses.get(key) ?? 0
      if (rule.next !== undefined && used >= rule.next) continue
      if (rule.rate !== undefined && roll() >= rule.rate) continue
      if (rule.next !== undefined) counting?.tx.put('fault_uses', { id: key, count: used + 1 })
      return { rule, name: `scenario ${scenario.name} faults[${index}]` }
    }
    return undefined
  }
}

const applies = (fault: RuntimeFaultRow, asked: Asked) =>
  (!fault.partner_id || fault.partner_id === asked.partner.id) &&
  routeMatches(fault.rule.route, asked.method, asked.path)

/** Whether a rule this request matches counts its requests (so choosing it writes). */
const counted = (rows: RuntimeFaultRow[], asked: Asked) =>
  rows.some((fault) => fault.remaining !== null && fault.remaining > 0 && applies(fault, asked)) ||
  (asked.scenario.faults ?? []).some(
    (rule) => rule.next !== undefined && routeMatches(rule.route, asked.method, asked.path),
  )

/** `<partner id>:<scenario>:<rule index>`: one partner's count of one scenario rule. */
const useKey = (asked: Asked, index: number) =>
  `${asked.partner.id}:${asked.scenario.name}:${index}`
