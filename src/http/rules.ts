import type { Context } from 'hono'
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status'
import { compareRequest, pathMatches, queryOf, type RequestFacts } from '../domain/request-match.js'
import { ApiError, codeForStatus } from '../errors.js'
import type { Random } from '../random.js'
import { type Decisions, decidedScenario } from '../rules/decisions.js'
import type { RuleRow } from '../rules/rule-schema.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { Rules, RulesAhead } from '../services/rules.js'
import type { PartnerRow } from '../store/records.js'
import { type AppEnv, nodeRequest } from './app-env.js'
import type { MetRule } from './journal-entry.js'
import { preferredRule } from './prefer.js'

/** What meeting rules takes: the rules, the scenarios (theirs and decisions), the dice. */
export interface RuleGate {
  rules: Pick<Rules, 'candidates' | 'use' | 'readAhead'>
  random: Random
  scenarios: Pick<ScenarioRegistry, 'forPartner' | 'withRequestScenario'>
}

/** The rules a request can meet, and the one that answers it (taken before the session check). */
export interface Outcome {
  answer?: RuleRow
  /** The rules that fit the request, in order, and what they compare it with. */
  fitting: RuleRow[]
  facts: RequestFacts
}

/**
 * The rules a partner API request can meet (services/rules.ts lists them, in order) and, of
 * those that answer (`respond`, `drop_connection`), the first that matches, passes its `rate`
 * and has a use left: it answers in place of the session check and the route, alone. A counted
 * rule is met only if its use is taken (two requests at once never both take the last).
 */
export async function meetRules(
  gate: RuleGate,
  c: Context<AppEnv>,
  partner: PartnerRow,
  ahead?: RulesAhead,
): Promise<Outcome | undefined> {
  const preferred = preferredRule(c, partner)
  const scenario = gate.scenarios.forPartner(partner)
  const all = await gate.rules.candidates(partner, scenario, ahead)
  const method = c.req.method
  const path = c.req.path
  const fitting = all.filter(
    (r) => (!r.match.method || r.match.method === method) && pathMatches(r.match.path, path),
  )
  if (preferred) fitting.unshift(preferred)
  if (fitting.length === 0) return undefined
  const url = c.req.url
  const query = queryOf(url.includes('?') ? url.slice(url.indexOf('?')) : '')
  // A Headers object lists its names in lower case already.
  const headers = Object.fromEntries(c.req.raw.headers)
  const body = fitting.some((r) => r.match.body !== undefined) ? await readJson(c) : undefined
  const facts: RequestFacts = { method, path, query, headers, body }
  const outcome: Outcome = {
    fitting: fitting.filter((r) => compareRequest(r.match, facts).differences.length === 0),
    facts,
  }
  for (const rule of outcome.fitting) {
    if (rule.respond === null && !rule.drop_connection) continue
    if (await met(gate, rule, preferred)) {
      outcome.answer = rule
      break
    }
  }
  return outcome.fitting.length > 0 ? outcome : undefined
}

/** Whether a fitting rule is met: it passes its `rate`, and a counted one's use is taken. */
async function met(gate: RuleGate, rule: RuleRow, preferred: RuleRow | undefined) {
  if (rule.rate !== null && gate.random.int(0, 999_999) / 1_000_000 >= rule.rate) return false
  return rule.times === null || rule === preferred || gate.rules.use(rule)
}

/**
 * Runs the request as the rules say, once its session (if its route takes one) was checked:
 * the answering rule's delay and answer or dropped connection; else every other rule it meets
 * (each adds its delay, and its decisions not taken by one before it), then the route under
 * the scenario those decisions make. Every rule met goes in the journal.
 */
export async function followRules(
  gate: RuleGate,
  c: Context<AppEnv>,
  outcome: Outcome,
  next: () => Promise<void> | void,
): Promise<void> {
  const { answer } = outcome
  if (answer) {
    const latency = delayOf(gate.random, answer.latency_ms)
    c.set('rules', [journalOf(answer, latency)])
    if (latency) await new Promise((resolve) => setTimeout(resolve, latency))
    if (answer.respond) return serve(c, answer)
    nodeRequest(c)?.socket.destroy()
    throw new ApiError('service_unavailable', `Rule ${answer.id}: the connection was dropped.`)
  }
  let decide: Decisions | undefined
  let wait = 0
  const journaled: MetRule[] = []
  for (const rule of outcome.fitting) {
    const fresh = Object.keys(rule.decide ?? {}).filter(
      (k) => decide?.[k as keyof Decisions] === undefined,
    )
    // A decision already taken is not taken again: such a rule would add nothing.
    if (rule.decide && fresh.length === 0) continue
    if (rule.respond !== null || rule.drop_connection || !(await met(gate, rule, undefined)))
      continue
    const latency = delayOf(gate.random, rule.latency_ms)
    wait += latency ?? 0
    if (rule.decide) decide = { ...rule.decide, ...decide }
    journaled.push(journalOf(rule, latency))
  }
  if (journaled.length > 0) c.set('rules', journaled)
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  if (!decide) return next()
  const partner = c.get('partner')
  const scenario = decidedScenario(gate.scenarios.forPartner(partner), decide)
  return gate.scenarios.withRequestScenario(scenario, next)
}

function delayOf(random: Random, latency: RuleRow['latency_ms']): number | undefined {
  if (latency === null) return undefined
  if (!Array.isArray(latency)) return latency
  return random.int(Math.min(...latency), Math.max(...latency))
}

function journalOf(rule: RuleRow, latency: number | undefined): MetRule {
  const effect = rule.respond
    ? 'respond'
    : rule.drop_connection
      ? 'drop_connection'
      : rule.decide
        ? 'decide'
        : 'latency'
  return {
    id: rule.id,
    ...(rule.scenario ? { scenario: rule.scenario } : {}),
    effect,
    ...(rule.respond ? { status: rule.respond.status, off_contract: rule.off_contract } : {}),
    ...(rule.decide ? { decide: rule.decide } : {}),
    ...(latency !== undefined ? { latency_ms: latency } : {}),
  }
}

/** Answers with the rule's status, headers and body (or the sandbox's error envelope). */
async function serve(c: Context<AppEnv>, rule: RuleRow): Promise<void> {
  const respond = rule.respond as NonNullable<RuleRow['respond']>
  // Read (and cached) as the route would have: the journal shows the body it was sent.
  await jsonText(c)?.catch(() => undefined)
  const requestId = c.get('requestId')
  // The headers set so far (the request id, the rate limit's) stay: hono keeps them on c.body.
  const headers: Record<string, string> = {
    ...(respond.status === 429 || respond.status === 503 ? { 'Retry-After': '1' } : {}),
    ...respond.headers,
  }
  const envelope = respond.body === undefined && respond.status >= 400
  const content = envelope
    ? {
        success: false,
        error: {
          code: codeForStatus(respond.status),
          message: `Rule ${rule.id}${rule.scenario ? ` (${rule.scenario})` : ''} answered ${respond.status} on purpose.`,
        },
        requestId,
      }
    : respond.body
  const hasType = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')
  let text: string | null = null
  if (content !== undefined && respond.status !== 204 && respond.status !== 304) {
    text = typeof content === 'string' && hasType ? content : JSON.stringify(content)
    if (!hasType) headers['content-type'] = 'application/json'
  }
  c.res =
    text === null
      ? c.body(null, respond.status as StatusCode, headers)
      : c.body(text, respond.status as ContentfulStatusCode, headers)
}

/**
 * The JSON body, read once and cached for the route as hono does. Only a JSON body: a
 * multipart one read as text here could not be parsed as a form by the route afterwards.
 */
async function readJson(c: Context<AppEnv>): Promise<unknown> {
  try {
    const text = await jsonText(c)
    return text ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}

/** The text of a JSON body, read once and cached (hono's `c.req.text()`); else undefined. */
function jsonText(c: Context<AppEnv>): Promise<string> | undefined {
  if (!/json/i.test(c.req.header('content-type') ?? '')) return undefined
  return c.req.text()
}
