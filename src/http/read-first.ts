import type { MiddlewareHandler } from 'hono'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import type { SandboxClockRow } from '../domain/sandbox-clock-row.js'
import type { LoadedScenarios } from '../scenarios/loaded-scenarios.js'
import type { SandboxScenario } from '../scenarios/sandbox-scenario.js'
import type { AppEnv } from './app-env.js'

/**
 * What a request reads from the state before anything reads the time or a scenario, so a
 * change made through any process counts from the next request, with no notice between
 * processes (docs/architecture.md, "The state seam").
 */

/** The rows of the sandbox's own settings, read before anything reads the time or decides. */
export interface SandboxSettings {
  clockRow: Pick<SandboxClockRow, 'refresh'>
  sandboxScenario: Pick<SandboxScenario, 'refresh'>
}

/**
 * The sandbox clock's setting and the sandbox-wide scenario, read at once: both reads begin in
 * this tick, so on PostgreSQL they go in one statement with any other read begun beside them.
 */
export const readSandboxSettings = (deps: SandboxSettings) =>
  Promise.all([deps.clockRow.refresh(), deps.sandboxScenario.refresh()])

/**
 * Every request reads the sandbox's settings (a row each) before anything reads the time or
 * decides; under `gated` the API gate reads them, with the partner its credentials name
 * (api-gate.ts).
 */
export function sandboxSettingsFirst(
  deps: SandboxSettings,
  gated: string,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.req.path.startsWith(gated)) await readSandboxSettings(deps)
    await next()
  }
}

const partnerPath = /^\/_sandbox\/partners\/([^/]+)(?:\/|$)/

/**
 * For the control plane and the hosted pages: the clock of the partner a path names (every
 * partner's, when it names none) and the loaded scenarios, read before the route runs. The
 * API gate reads its partner's itself (api-gate.ts).
 */
export function partnerSettingsFirst(deps: {
  clocks: Pick<PartnerClocks, 'refresh' | 'refreshAll'>
  loadedScenarios: Pick<LoadedScenarios, 'refreshAll'>
}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = partnerPath.exec(c.req.path)?.[1]
    await Promise.all([
      id === undefined ? deps.clocks.refreshAll() : deps.clocks.refresh(decodeURIComponent(id)),
      deps.loadedScenarios.refreshAll(),
    ])
    await next()
  }
}
