import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { z } from 'zod'
import { humanMessage, valueAt } from '../http/issue-messages.js'
import { packageRoot } from '../package-root.js'
import { type Scenario, scenarioSchema } from './schema.js'

export const bundledScenarioDir = join(packageRoot, 'scenarios')

export class ScenarioError extends Error {
  override name = 'ScenarioError'
}

/** "rate_limit.per_minute: must be greater than 0" — one clause per bad value. */
export function describeIssues(error: z.ZodError, input?: unknown): string {
  return error.issues
    .map((issue) => {
      const { value, present } = valueAt(input, issue.path)
      const message = humanMessage(issue, value, input === undefined ? true : present)
      return `${issue.path.length ? issue.path.join('.') : '(root)'}: ${message}`
    })
    .join('; ')
}

export function parseScenario(value: unknown, source: string): Scenario {
  const parsed = scenarioSchema.safeParse(value)
  if (!parsed.success)
    throw new ScenarioError(`scenario ${source} is invalid: ${describeIssues(parsed.error, value)}`)
  return parsed.data
}

/** Loads a bundled scenario by name, or a scenario file by path. */
export function loadScenario(nameOrFile: string, cwd = process.cwd()): Scenario {
  const looksLikePath = nameOrFile.includes('/') || nameOrFile.endsWith('.json')
  const file = looksLikePath
    ? resolve(cwd, nameOrFile)
    : join(bundledScenarioDir, `${nameOrFile}.json`)
  if (!existsSync(file)) {
    const known = listBundledScenarios().map((s) => s.name)
    throw new ScenarioError(
      looksLikePath
        ? `scenario file ${file} does not exist`
        : `unknown scenario "${nameOrFile}"; bundled scenarios: ${known.join(', ')}`,
    )
  }
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new ScenarioError(`scenario file ${file} is not valid JSON: ${(error as Error).message}`)
  }
  return parseScenario(raw, file)
}

/** Names of the bundled scenarios, from their file names (nothing parsed). */
export function listBundledScenarioNames(): string[] {
  return readdirSync(bundledScenarioDir)
    .filter((f) => f.endsWith('.json') && !f.endsWith('.schema.json'))
    .map((f) => f.slice(0, -'.json'.length))
}

export function listBundledScenarios(): Scenario[] {
  return readdirSync(bundledScenarioDir)
    .filter((f) => f.endsWith('.json') && !f.endsWith('.schema.json'))
    .sort()
    .map((f) => parseScenario(JSON.parse(readFileSync(join(bundledScenarioDir, f), 'utf8')), f))
}
