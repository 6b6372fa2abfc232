import type { Deps } from '../deps.js'
import type { ScenarioRow } from '../store/records.js'
import { parseScenario } from './loader.js'
import type { Scenario } from './schema.js'

/**
 * Scenarios loaded through the control plane live in the store (collection `scenarios`), so
 * with a data file they survive a restart like the partners that name them. They are
 * configuration, not data: a reset or a restore keeps every scenario loaded so far (a
 * restored snapshot adds its own).
 */
export class LoadedScenarios {
  private readonly loaded = new Map<string, ScenarioRow>()

  constructor(private readonly deps: Pick<Deps, 'store' | 'scenarios' | 'logger' | 'clock'>) {
    deps.scenarios.onMissing = (message) => deps.logger.error(message)
    deps.scenarios.keep = (scenario) => this.save(scenario)
    this.readStore()
    deps.store.onReplace(() => this.afterReplace())
    // Said at start-up, not at a partner's first request: a person reads the banner's log.
    for (const partner of deps.store.all('partners')) deps.scenarios.problemOf(partner)
  }

  /** Keeps a scenario loaded through the control plane with the data. */
  private save(scenario: Scenario): void {
    const row: ScenarioRow = {
      id: scenario.name,
      document: scenario as unknown as Record<string, unknown>,
      loaded_at: this.deps.clock.iso(),
    }
    this.deps.store.put('scenarios', row)
    this.loaded.set(row.id, row)
  }

  private readStore(): void {
    for (const row of this.deps.store.all('scenarios')) {
      try {
        this.deps.scenarios.register(parseScenario(row.document, `${row.id} (kept in the data)`))
        this.loaded.set(row.id, row)
      } catch (error) {
        this.deps.logger.error(`cannot use a kept scenario: ${(error as Error).message}`)
      }
    }
  }

  private afterReplace(): void {
    const { store } = this.deps
    const missing = [...this.loaded.values()].filter((row) => !store.get('scenarios', row.id))
    if (missing.length > 0)
      store.batch((w) => {
        for (const row of missing) w.put('scenarios', row)
      })
    this.readStore()
  }
}
