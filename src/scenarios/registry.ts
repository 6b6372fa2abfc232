import { AsyncLocalStorage } from 'node:async_hooks'
import { ApiError } from '../errors.js'
import { loadScenario, ScenarioError } from './loader.js'
import type { Scenario } from './schema.js'

/**
 * The scenarios in force: the sandbox-wide one (`--scenario`), any a partner was given
 * through the control plane, and one a single request asked for (X-Sandbox-Scenario).
 * Decisions ask `forPartner()`, so switching takes effect on the next request, atomically,
 * without a restart; a request's own scenario lives only for that request.
 */
export class ScenarioRegistry {
  private readonly byName = new Map<string, Scenario>()
  private current: Scenario
  private readonly perRequest = new AsyncLocalStorage<Scenario>()

  /** Runs `fn` (a request) with its own scenario. */
  withRequestScenario<T>(scenario: Scenario, fn: () => T): T {
    return this.perRequest.run(scenario, fn)
  }

  /** Registered and loaded scenarios, by name. */
  registered(): Scenario[] {
    return [...this.byName.values()]
  }

  constructor(initial: Scenario) {
    this.current = initial
    this.byName.set(initial.name, initial)
  }

  get default(): Scenario {
    return this.current
  }

  setDefault(scenario: Scenario): void {
    this.register(scenario)
    this.current = scenario
  }

  register(scenario: Scenario): void {
    this.byName.set(scenario.name, scenario)
  }

  /** A registered scenario or a bundled one by name; ApiError 400 when there is none. */
  resolve(name: string): Scenario {
    const known = this.byName.get(name)
    if (known) return known
    try {
      // A name only: a path would read a file of the server's disk (--scenario FILE does).
      if (!/^[a-z0-9][a-z0-9-]*$/.test(name))
        throw new ScenarioError(
          `unknown scenario "${name}": give the name of a bundled or loaded scenario`,
        )
      const loaded = loadScenario(name)
      this.register(loaded)
      return loaded
    } catch (error) {
      if (error instanceof ScenarioError) {
        throw new ApiError('validation_error', error.message, {
          details: [{ field: 'scenario', message: error.message, location: 'body' }],
        })
      }
      throw error
    }
  }

  /**
   * The partner's own scenario, whatever the request in progress asked for: for work that
   * outlives the request (webhook deliveries run on timers that inherit its context).
   */
  ownScenarioOf(partner: { scenario: string | null }): Scenario {
    return this.perRequest.exit(() => this.forPartner(partner))
  }

  forPartner(partner: { scenario: string | null }): Scenario {
    const requested = this.perRequest.getStore()
    if (requested) return requested
    if (!partner.scenario) return this.current
    try {
      // After a restart a partner may name a bundled scenario that is not loaded yet.
      return this.resolve(partner.scenario)
    } catch {
      return this.current
    }
  }
}
