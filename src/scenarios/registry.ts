import { ApiError } from '../errors.js'
import { loadScenario, ScenarioError } from './loader.js'
import type { Scenario } from './schema.js'

/**
 * The scenarios in force: the sandbox-wide one (`--scenario`) and any a partner was given
 * through the control plane. Decisions ask `forPartner()`, so switching a partner's scenario
 * takes effect on its next request, atomically, without a restart.
 */
export class ScenarioRegistry {
  private readonly byName = new Map<string, Scenario>()
  private current: Scenario

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

  forPartner(partner: { scenario: string | null }): Scenario {
    if (!partner.scenario) return this.current
    try {
      // After a restart a partner may name a bundled scenario that is not loaded yet.
      return this.resolve(partner.scenario)
    } catch {
      return this.current
    }
  }
}
