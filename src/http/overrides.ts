import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { compareRequest, pathMatches, queryOf } from '../domain/request-match.js'
import type { Overrides } from '../services/overrides.js'
import type { PartnerRow } from '../store/records.js'
import type { OverrideRow } from '../store/records-overrides.js'
import type { AppEnv } from './app-env.js'
import { requestHeader } from './request-headers.js'

/**
 * Serving response overrides (domain/overrides.ts) on the partner API. They apply only to a
 * request already authenticated as a partner: a partner's own overrides never answer another
 * partner, and global ones answer any partner's authenticated request, never an anonymous
 * one. Of those that match, the highest priority wins, then the newest.
 */

/**
 * The override that answers this request, if any, from the lists read in this request; a
 * candidate that looks at the body has it read (and cached for the route as hono does).
 */
export function pickOverride(
  gate: { overrides: Overrides },
  c: Context<AppEnv>,
  partner: PartnerRow,
): Promise<OverrideRow | undefined> {
  return gate.overrides.candidates(partner.id).then((rows) => rows && pickAmong(gate, c, rows))
}

function pickAmong(
  { overrides }: { overrides: Overrides },
  c: Context<AppEnv>,
  all: OverrideRow[],
): OverrideRow | undefined | Promise<OverrideRow | undefined> {
  const method = c.req.method
  const path = c.req.path
  const fitting = all.filter((o) => o.match.method === method && pathMatches(o.match.path, path))
  if (fitting.length === 0) return undefined
  const url = c.req.url
  const query = queryOf(url.includes('?') ? url.slice(url.indexOf('?')) : '')
  // A Headers object lists its names in lower case already.
  const headers = Object.fromEntries(c.req.raw.headers)
  // Of those that match, the first with an answer left (one with `times` is counted).
  const first = (body: unknown) =>
    overrides.claim(
      fitting.filter(
        (o) =>
          compareRequest(o.match, { method, path, query, headers, body }).differences.length === 0,
      ),
    )
  if (!fitting.some((o) => o.match.body !== undefined)) return first(undefined)
  return readJson(c).then(first)
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
  if (!/json/i.test(requestHeader(c, 'content-type') ?? '')) return undefined
  return c.req.text()
}

/** Answers with the override (after its delay) and marks the journal. */
export async function serveOverride(c: Context<AppEnv>, override: OverrideRow): Promise<void> {
  const { respond } = override
  c.set('override', { id: override.id, off_contract: override.contract_problem !== null })
  // Read (and cached) as the route would have: the journal shows the body it was sent.
  await jsonText(c)?.catch(() => undefined)
  if (respond.delay_ms) await new Promise((resolve) => setTimeout(resolve, respond.delay_ms))
  // Added to the headers the answer already carries (X-Request-Id, the rate limit's).
  const headers: Record<string, string> = { ...respond.headers }
  const hasType = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')
  let body: string | null = null
  if (respond.body !== undefined && respond.status !== 204 && respond.status !== 304) {
    body = typeof respond.body === 'string' && hasType ? respond.body : JSON.stringify(respond.body)
    if (!hasType) headers['content-type'] = 'application/json'
  }
  // Typed as hono types a body (its null form takes only the statuses without one).
  c.res = c.body(body as string, respond.status as ContentfulStatusCode, headers)
}
