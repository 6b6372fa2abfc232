import type { Logger } from '../logger.js'
import type { State } from '../state/seam.js'
import type { SandboxScenarioRow } from '../store/records.js'
import { parseScenario } from './loader.js'
import type { ScenarioRegistry } from './registry.js'
import type { Scenario } from './schema.js'

export interface SandboxScenarioParts {
  state: State
  scenarios: ScenarioRegistry
  logger: Pick<Logger, 'error' | 'warn'>
}

/**
 * The sandbox-wide scenario as a row of the state, `sandbox_scenario/sandbox`, so every process
 * sharing the state decides by one choice: PUT /_sandbox/scenario through any replica is the
 * scenario of all from their next request. The row holds the chosen scenario's document (what
 * was chosen stays chosen when a scenario of that name is loaded again, as in one process), so
 * reading it is all it takes: it is read with the sandbox clock's row, first thing in every
 * request and before each sweep. What the process keeps cannot go stale: the document last
 * put in force, to compile a changed one only.
 */
export class SandboxScenario {
  /** Reads begun (and choices made) so far, and the latest of them put in force. */
  private begun = 0
  private taken = 0
  /** The row last put in force (the memory engine answers the same object until it changes). */
  private row: SandboxScenarioRow | undefined
  /** Its document, as JSON text. */
  private text: string | undefined

  private constructor(private readonly parts: SandboxScenarioParts) {}

  /**
   * Takes the stored choice when there is one (a replica joining a running sandbox follows
   * it, as it follows the sandbox clock), else stores the scenario the sandbox started with.
   */
  static async open(parts: SandboxScenarioParts): Promise<SandboxScenario> {
    const chosen = new SandboxScenario(parts)
    const { started } = parts.scenarios
    const stored = await parts.state.get('sandbox_scenario', 'sandbox')
    if (!stored) await chosen.choose(started)
    // One this version cannot use (take says why; a newer replica's, say) is left to the
    // replicas that can: this one decides by its own until the row changes.
    else if (chosen.take(stored) && stored.name !== started.name)
      parts.logger.warn(
        `this process was started with the scenario "${started.name}", but the sandbox's is "${stored.name}", chosen before it started: switch with PUT /_sandbox/scenario`,
      )
    return chosen
  }

  /** Reads the row and puts its scenario in force, unless a later read or choice did first. */
  async refresh(): Promise<void> {
    const mine = ++this.begun
    const stored = await this.parts.state.get('sandbox_scenario', 'sandbox')
    if (!stored || mine < this.taken) return
    this.taken = mine
    this.take(stored)
  }

  /** Stores `scenario` as the sandbox's, and puts it in force once committed. */
  async choose(scenario: Scenario): Promise<void> {
    const row: SandboxScenarioRow = {
      id: 'sandbox',
      name: scenario.name,
      document: scenario as unknown as Record<string, unknown>,
    }
    await this.parts.state.transaction(async (tx) => {
      // A loaded one must still be: a delete (through any replica) may have taken it.
      await this.parts.scenarios.requireLoaded(tx, scenario.name, 'name')
      tx.put('sandbox_scenario', row)
    })
    // Counted as a read begun now: one begun before the commit cannot undo it.
    this.taken = ++this.begun
    this.row = undefined
    this.text = JSON.stringify(row.document)
    this.parts.scenarios.setDefault(scenario)
  }

  /** Puts the row's scenario in force; false when its document cannot be used (said once). */
  private take(row: SandboxScenarioRow): boolean {
    if (row === this.row) return true
    this.row = row
    const text = JSON.stringify(row.document)
    if (text === this.text) return true
    this.text = text
    try {
      this.parts.scenarios.setDefault(
        parseScenario(row.document, `the sandbox's scenario ${row.name}`),
      )
      return true
    } catch (error) {
      this.parts.logger.error(`cannot use the sandbox's scenario: ${(error as Error).message}`)
      return false
    }
  }
}
