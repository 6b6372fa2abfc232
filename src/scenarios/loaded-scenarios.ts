import { createHash } from 'node:crypto'
import type { Clock } from '../clock.js'
import { ApiError } from '../errors.js'
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
 * Scenarios a sandbox keeps loaded at most. The control plane, the hosted pages and each sweep
 * read every loaded one, so their cost follows this number: past it a load of a new name is
 * refused (409) until one is deleted, rather than each run of a suite that loads under a new
 * name making the shared sandbox slower for good.
 */
export const LOADED_SCENARIOS_CAP = 100

/**
 * Scenarios loaded through the control plane live in the state (collection `scenarios`), so
 * with a data file they survive a restart like the partners that name them, and every process
 * sharing the state uses them. They are configuration, not data: a reset or a restore keeps
 * every scenario loaded so far, in the replace's own transaction (records.ts,
 * mergedOnReplace), and a restored snapshot adds its own.
 *
 * The row is the truth: it is read whenever a request names the scenario (`refresh`: its
 * partner's, or its X-Sandbox-Scenario), and all of them before the control plane answers and
 * before each sweep (`refreshAll`), and put in force in the registry. What this process keeps
 * cannot go stale: each document compiled once, keyed by a hash of its content.
 */
export class LoadedScenarios {
  /** Compiled scenarios (or why a document cannot be used), by the hash of the document. */
  private readonly compiled = new Map<string, Scenario | Error>()
  /** What each row read so far compiled to, while the row object lives. */
  private readonly byRow = new WeakMap<ScenarioRow, Scenario | Error>()
  /** The names this process put in force from rows: forgotten when their row goes. */
  private readonly inForce = new Set<string>()

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
    await this.parts.state.transaction(async (tx) => {
      if (await tx.get('scenarios', row.id)) return tx.put('scenarios', row)
      const loaded = await tx.all('scenarios')
      if (loaded.length >= LOADED_SCENARIOS_CAP)
        throw new ApiError(
          'conflict',
          `This sandbox keeps at most ${LOADED_SCENARIOS_CAP} loaded scenarios and has ${loaded.length}: delete one with DELETE /_sandbox/scenarios/{name}, or load this one under the name of one it replaces.`,
        )
      tx.put('scenarios', row)
    })
    this.take(row)
  }

  /**
   * Deletes the loaded scenario `name`: 404 when none is loaded by that name (a bundled one is
   * part of the sandbox), 409 while a partner names it or it is the sandbox-wide one. A
   * bundled scenario it shadowed is the one that name gives again.
   */
  async remove(name: string): Promise<void> {
    await this.parts.state.transaction(async (tx) => {
      if (!(await tx.get('scenarios', name)))
        throw new ApiError(
          'not_found',
          `No scenario named "${name}" is loaded (GET /_sandbox/scenarios lists them; a bundled one cannot be deleted).`,
        )
      if ((await tx.get('sandbox_scenario', 'sandbox'))?.name === name)
        throw new ApiError(
          'conflict',
          `The scenario "${name}" is the sandbox-wide one: switch to another with PUT /_sandbox/scenario first.`,
        )
      const naming = await tx.lookup('partners_by_scenario', name)
      if (naming.length > 0) {
        const one = naming.length === 1
        const ids = naming.slice(0, 5).map((p) => p.id)
        const who = `${one ? 'partner' : 'partners'} ${ids.join(', ')}${naming.length > 5 ? ' and others' : ''}`
        throw new ApiError(
          'conflict',
          `The scenario "${name}" is the scenario of ${who}: give ${one ? 'it' : 'them'} another with PATCH /_sandbox/partners/{id} first.`,
        )
      }
      tx.remove('scenarios', name)
    })
    this.forget(name)
  }

  /** Reads the row of the scenario `name` (when a request names one) and puts it in force. */
  async refresh(name: string | null | undefined): Promise<void> {
    if (!name) return
    const row = await this.parts.state.get('scenarios', name)
    if (row) this.take(row)
    else this.forget(name)
  }

  /** Reads every loaded scenario's row and puts it in force; one whose row went is forgotten. */
  async refreshAll(): Promise<void> {
    const rows = await this.parts.state.all('scenarios')
    const names = new Set(rows.map((row) => row.id))
    for (const name of this.inForce) if (!names.has(name)) this.forget(name)
    for (const row of rows) this.take(row)
  }

  /** Puts a kept scenario in force (a bad one is logged once and left out). */
  private take(row: ScenarioRow): void {
    // The memory engine answers the same row object until the row is written again: its
    // document is not hashed again on each read.
    let compiled = this.byRow.get(row)
    if (compiled === undefined) {
      compiled = this.compile(row)
      this.byRow.set(row, compiled)
    }
    if (compiled instanceof Error) return
    this.parts.scenarios.register(compiled)
    this.inForce.add(row.id)
  }

  /** The row's document compiled, once per content (or why it cannot be used). */
  private compile(row: ScenarioRow): Scenario | Error {
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
    return compiled
  }

  /** A scenario whose row was deleted (through any process): no longer found by its name. */
  private forget(name: string): void {
    if (this.inForce.delete(name)) this.parts.scenarios.unregister(name)
  }
}
