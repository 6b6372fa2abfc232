import { eventCatalogue } from '../webhooks/catalogue.js'
import { callSandbox, type Remote } from './remote.js'

/**
 * `partner-sandbox trigger <event> [--partner KEY] [--override PATH=VALUE]…`: the partner is
 * named by its API key (what a developer has at hand); the sandbox makes the event from that
 * partner's real state, with the chosen fields set.
 */

/** What `trigger` without an event prints: every event type, one line each. */
export function eventList(): string {
  const types = Object.keys(eventCatalogue)
  const width = Math.max(...types.map((t) => t.length))
  const lines = Object.entries(eventCatalogue).map(
    ([type, what]) => `  ${type.padEnd(width)}  ${what}`,
  )
  return [
    'trigger needs an event type: partner-sandbox trigger EVENT [--override data.object.FIELD=VALUE]…',
    'Events:',
    ...lines,
  ].join('\n')
}

/**
 * `--override data.object.amount=12.34`, repeatable: the value is JSON when it parses as JSON
 * (12.34, true, null, "quoted", {"name":"Acme"}), else the text as a string.
 */
export function parseOverrides(given: string[] | undefined): Record<string, unknown> {
  const overrides: Record<string, unknown> = {}
  for (const item of given ?? []) {
    const eq = item.indexOf('=')
    if (eq <= 0)
      throw new Error(
        `--override ${item}: write PATH=VALUE, e.g. --override data.object.amount=12.34`,
      )
    const raw = item.slice(eq + 1)
    let value: unknown = raw
    try {
      value = JSON.parse(raw)
    } catch {
      // Not JSON: the text itself.
    }
    overrides[item.slice(0, eq)] = value
  }
  return overrides
}

interface Triggered {
  event: { id: string; type: string; data: { object: { id?: string } } }
  made: { object: string; id: string }[]
}

export async function trigger(
  remote: Remote,
  type: string,
  partnerKey: string,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const partner = await partnerWithKey(remote, partnerKey)
  if (!partner) throw new Error(`no partner has the API key ${partnerKey} in ${remote.url}`)
  const { event, made } = (await callSandbox(remote, 'POST', '/_sandbox/events', {
    as: 'admin',
    body: {
      partner_id: partner.id,
      type,
      ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
    },
  })) as unknown as Triggered
  const object = event.data.object.id ? ` (${event.data.object.id})` : ''
  const lines = [`Triggered ${event.type} ${event.id} for ${partner.slug}${object}`]
  for (const row of made) lines.push(`Made ${row.object} ${row.id}`)
  if (made.length === 0)
    lines.push(`Made nothing new: the object is that of ${partner.slug}'s newest ${type} event`)
  lines.push(JSON.stringify(event, null, 2))
  return lines.join('\n')
}

type ListedPartner = { id: string; api_key: string; slug: string }

/** Reads the partners list a page at a time until one has the key. */
async function partnerWithKey(remote: Remote, key: string): Promise<ListedPartner | undefined> {
  let after = ''
  for (;;) {
    const page = await callSandbox(remote, 'GET', `/_sandbox/partners?limit=500${after}`, {
      as: 'admin',
    })
    const partners = page.data as ListedPartner[]
    const found = partners.find((p) => p.api_key === key)
    if (found || !page.has_more || partners.length === 0) return found
    after = `&starting_after=${(partners.at(-1) as ListedPartner).id}`
  }
}
