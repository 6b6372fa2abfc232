import { AsyncLocalStorage } from 'node:async_hooks'
import { ApiError } from '../errors.js'
import type { StateReader } from '../state/seam.js'
import { listBundledScenarioNames, loadScenario, ScenarioError } from './loader.js'
import { SCENARIO_NAME, type Scenario } from './schema.js'

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

  /** `onMissing` is told once per missing name (the logger). */
  constructor(
    private readonly initial: Scenario,
    private readonly onMissing: (message: string) => void = () => {},
  ) {
    this.current = initial
    this.byName.set(initial.name, initial)
  }

  /** The scenario this process was started with (`--scenario`), whatever the sandbox's is. */
  get started(): Scenario {
    return this.initial
  }

  get default(): Scenario {
    return this.current
  }

  /**
   * The sandbox-wide scenario, as its row says (SandboxScenario): not registered by name, so a
   * scenario of that name loaded since still decides for the partners that name it.
   */
  setDefault(scenario: Scenario): void {
    this.current = scenario
  }

  register(scenario: Scenario): void {
    this.byName.set(scenario.name, scenario)
    this.missing.delete(scenario.name)
  }

  /**
   * A loaded scenario deleted: its name gives the scenario the sandbox started with, or a
   * bundled one (resolve reads it again), if either has it.
   */
  unregister(name: string): void {
    this.byName.delete(name)
    if (name === this.initial.name) this.byName.set(name, this.initial)
  }

  /**
   * Inside the transaction that gives a partner (or the sandbox) the scenario `name` (resolve
   * checked it before): one the sandbox does not have of its own (bundled, or the one it
   * started with) must still be loaded, its row read in that transaction, or a delete
   * committed meanwhile (through any replica) would leave it naming none. ApiError 400 naming
   * `field` when it went.
   */
  async requireLoaded(
    reader: Pick<StateReader, 'get'>,
    name: string,
    field = 'scenario',
  ): Promise<void> {
    if (name === this.initial.name || this.bundledNames().has(name)) return
    if (await reader.get('scenarios', name)) return
    const message = `unknown scenario "${name}": it was deleted; give the name of a bundled or loaded scenario (GET /_sandbox/scenarios lists them)`
    throw new ApiError('validation_error', message, {
      details: [{ field, message, location: 'body' }],
    })
  }

  /** A registered scenario or a bundled one by name; ApiError 400 when there is none. */
  resolve(name: string): Scenario {
    const known = this.byName.get(name)
    if (known) return known
    try {
      // A name only: a path would read a file of the server's disk (--scenario FILE does).
      // Unknown names are told apart from the bundled list read once, not from the disk.
      if (!SCENARIO_NAME.test(name) || !this.bundledNames().has(name))
        throw new ScenarioError(
          `unknown scenario "${name}": give the name of a bundled or loaded scenario (GET /_sandbox/scenarios lists them)`,
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

  private bundled?: Set<string>
  private bundledNames(): Set<string> {
    this.bundled ??= new Set(listBundledScenarioNames())
    return this.bundled
  }

  /**
   * Why a partner's own scenario cannot be used (it names one that is neither loaded nor
   * bundled: lost with an old data file, or renamed), or undefined when it can. Logged once
   * per name; shown by GET /_sandbox/partners and /_sandbox/health; its API requests get 503.
   */
  problemOf(partner: { id?: string; scenario: string | null }): string | undefined {
    const name = partner.scenario
    if (!name || this.byName.has(name)) return undefined
    let problem = this.missing.get(name)
    if (problem === undefined) {
      try {
        this.resolve(name)
        return undefined
      } catch {
        problem = `scenario "${name}" is not loaded in this sandbox: load it with POST /_sandbox/scenarios, or give the partner another with PATCH /_sandbox/partners/{id}`
        this.missing.set(name, problem)
        this.onMissing(`${partner.id ? `partner ${partner.id}` : 'a partner'} names ${problem}`)
      }
    }
    return problem
  }

  private readonly missing = new Map<string, string>()

  /** Throws the 503 a partner's request gets while its scenario is missing. */
  requireOwnScenario(partner: { id?: string; scenario: string | null }): void {
    if (!partner.scenario || this.byName.has(partner.scenario)) return
    const problem = this.problemOf(partner)
    if (problem) throw new ApiError('service_unavailable', `This partner's ${problem}.`)
  }

  /**
   * The partner's own scenario, whatever the request in progress asked for: for work that
   * outlives the request (webhook deliveries run on timers that inherit its context).
   */
  ownScenarioOf(partner: { scenario: string | null }): Scenario {
    return this.perRequest.exit(() => this.forPartner(partner))
  }

  /**
   * The scenario deciding for a partner. One whose scenario is missing gets the sandbox-wide
   * one here (for background work: deliveries, sweeps), never silently: problemOf() logs it,
   * the control plane shows it and the partner's API requests are refused.
   */
  forPartner(partner: { id?: string; scenario: string | null }): Scenario {
    const requested = this.perRequest.getStore()
    if (requested) return requested
    if (!partner.scenario) return this.current
    const known = this.byName.get(partner.scenario)
    if (known) return known
    if (this.problemOf(partner)) return this.current
    return this.byName.get(partner.scenario) ?? this.current
  }
}
