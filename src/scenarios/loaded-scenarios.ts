import { createHash } from 'node:crypto'
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

/** Compiled documents kept at most; past it the cache starts over (it is only a cache). */
const COMPILED = 256

/**
 * Scenarios loaded through the control plane live in the state (collection `scenarios`), so
 * with a data file they survive a restart like the partners that name them, and every process
 * sharing the state uses them. They are configuration, not data: a reset or a restore keeps
 * every scenario loaded so far (a restored snapshot adds its own).
 *
 * The row is the truth: it is read whenever a request names the scenario (`refresh`: its
 * partner's, or its X-Sandbox-Scenario), and all of them before the control plane answers and
 * before each sweep (`refreshAll`), and put in force in the registry. What this process keeps
 * cannot go stale: each document compiled once, keyed by a hash of its content.
 */
export class LoadedScenarios {
  /** Compiled scenarios (or why a document cannot be used), by the hash of the document. */
  private readonly compiled = new Map<string, Scenario | Error>()

  private constructor(private readonly parts: LoadedScenariosParts) {}

  /** Registers the kept scenarios, and says at start-up which partners name a missing one. */
  static async open(parts: LoadedScenariosParts): Promise<LoadedScenarios> {
    const loaded = new LoadedScenarios(parts)
    await loaded.refreshAll()
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
    this.take(row)
  }

  /** Reads the row of the scenario `name` (when a request names one) and puts it in force. */
  async refresh(name: string | null | undefined): Promise<void> {
    if (!name) return
    const row = await this.parts.state.get('scenarios', name)
    if (row) this.take(row)
  }

  /** Reads every loaded scenario's row and puts it in force. */
  async refreshAll(): Promise<void> {
    for (const row of await this.parts.state.all('scenarios')) this.take(row)
  }

  /**
   * Runs `replace` (a reset or restore of the whole state), then puts back every scenario
   * loaded before it that the new state lacks: read before, in the same request.
   */
  async keptAcross(replace: () => Promise<void>): Promise<void> {
    const { state } = this.parts
    const before = await state.all('scenarios')
    await replace()
    try {
      await state.transaction(async (tx) => {
        for (const row of before) if (!(await tx.get('scenarios', row.id))) tx.put('scenarios', row)
      })
      await this.refreshAll()
    } catch (error) {
      this.parts.logger.error(`cannot keep the loaded scenarios: ${(error as Error).stack}`)
    }
  }

  /** Puts a kept scenario in force (a bad one is logged once and left out). */
  private take(row: ScenarioRow): void {
    const key = createHash('sha256').update(JSON.stringify(row.document)).digest('base64')
    let compiled = this.compiled.get(key)
    if (compiled === undefined) {
      try {
        compiled = parseScenario(row.document, `${row.id} (kept in the data)`)
      } catch (error) {
        const message = (error as Error).message
        compiled = new Error(message)
        this.parts.logger.error(`cannot use a kept scenario: ${message}`)
      }
      if (this.compiled.size >= COMPILED) this.compiled.clear()
      this.compiled.set(key, compiled)
    }
    if (!(compiled instanceof Error)) this.parts.scenarios.register(compiled)
  }
}
