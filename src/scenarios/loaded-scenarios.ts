import type { Clock } from '../clock.js'
import type { Logger } from '../logger.js'
import type { State } from '../state/seam.js'
import type { ScenarioRow } from '../store/records.js'
import { parseScenario } from './loader.js'
import type { ScenarioRegistry } from './registry.js'
import type { Scenario } from './schema.js'

export interface LoadedScenariosParts {
  state: State
  scenarios: ScenarioRegistry
  logger: Pick<Logger, 'error'>
  clock: Clock
}

/**
 * Scenarios loaded through the control plane live in the state (collection `scenarios`), so
 * with a data file they survive a restart like the partners that name them. They are
 * configuration, not data: a reset or a restore keeps every scenario loaded so far (a
 * restored snapshot adds its own). The registry holds what is in force, taken from these rows
 * as they are read at start, committed (by this process or another) and restored.
 */
export class LoadedScenarios {
  /** Every row loaded so far, put back after a reset or restore that lost it. */
  private readonly loaded = new Map<string, ScenarioRow>()

  private constructor(private readonly parts: LoadedScenariosParts) {
    parts.state.onCommit((changes) => {
      for (const change of changes)
        if (change.collection === 'scenarios' && change.row) this.take(change.row as ScenarioRow)
    })
    parts.state.onReplace(() => this.afterReplace())
  }

  /** Registers the kept scenarios, and says at start-up which partners name a missing one. */
  static async open(parts: LoadedScenariosParts): Promise<LoadedScenarios> {
    const loaded = new LoadedScenarios(parts)
    await loaded.readState()
    // Said at start-up, not at a partner's first request: a person reads the banner's log.
    for (const partner of await parts.state.all('partners')) parts.scenarios.problemOf(partner)
    return loaded
  }

  /** A scenario loaded through the control plane: kept with the data, in force once committed. */
  async load(scenario: Scenario): Promise<void> {
    const row: ScenarioRow = {
      id: scenario.name,
      document: scenario as unknown as Record<string, unknown>,
      loaded_at: this.parts.clock.iso(),
    }
    await this.parts.state.transaction(async (tx) => tx.put('scenarios', row))
  }

  private async readState(): Promise<void> {
    for (const row of await this.parts.state.all('scenarios')) this.take(row)
  }

  /** Puts a kept scenario in force (a bad one is logged and left out). */
  private take(row: ScenarioRow): void {
    try {
      this.parts.scenarios.register(parseScenario(row.document, `${row.id} (kept in the data)`))
      this.loaded.set(row.id, row)
    } catch (error) {
      this.parts.logger.error(`cannot use a kept scenario: ${(error as Error).message}`)
    }
  }

  private async afterReplace(): Promise<void> {
    const { state } = this.parts
    try {
      await state.transaction(async (tx) => {
        for (const row of this.loaded.values())
          if (!(await tx.get('scenarios', row.id))) tx.put('scenarios', row)
      })
      await this.readState()
    } catch (error) {
      this.parts.logger.error(`cannot keep the loaded scenarios: ${(error as Error).stack}`)
    }
  }
}
