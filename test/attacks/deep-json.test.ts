import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../../src/store/default-credentials.js'
import { journalOf, setup } from '../helpers.js'

/**
 * JSON nested to any depth. JSON.parse takes it, but JSON.stringify and every recursive walk
 * overflow the stack a few thousand levels down: such a body was refused with a 400, then
 * every read of the journal page holding it answered 500. Whatever the depth, each place that
 * reads a body back (journal, dashboard, debug log, snapshot) answers without a 5xx.
 */

const arrays = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`
const objects = (depth: number, inner = '1') =>
  `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`

const bodies: [string, string, string][] = [
  ['5,000 arrays', arrays(5_000), 'body'],
  ['200,000 arrays', arrays(200_000), 'body'],
  ['5,000 objects under a field', `{"display_name":${objects(5_000)}}`, 'display_name'],
  ['100,000 objects', objects(100_000), 'a'],
]

const API = '/api/v1/partner'
const routes = [`PATCH ${API}/me`, `POST ${API}/auth/register`, 'POST /_sandbox/events']

async function sandboxWithDeepBodies(logs: string[] = []) {
  const { sandbox, call } = await setup({
    logLevel: 'debug',
    onLog: (line: string) => logs.push(line),
  })
  for (const route of routes) {
    const [method, path] = route.split(' ') as [string, string]
    for (const [what, raw, field] of bodies) {
      const res = await call(method, path, {
        raw,
        headers: { 'content-type': 'application/json' },
      })
      const label = `${route} ${what}`
      expect(res.status, label).toBe(400)
      expect(res.json, label).toMatchObject({
        success: false,
        error: { code: 'validation_error', details: [{ field, location: 'body' }] },
      })
      expect(res.json.error.message, label).toContain('nested more than 100 levels deep')
    }
  }
  return { sandbox, call, logs }
}

describe('JSON nested deeper than the limit', () => {
  it('is refused with a 400 naming its field, on the API and the control plane', async () => {
    await sandboxWithDeepBodies()
  })

  it('leaves the journal readable: the entries show the body cut at the limit', async () => {
    const { call } = await sandboxWithDeepBodies()
    const journal = await journalOf(call, { limit: '100' })
    const refused = journal.filter((e) => e.status === 400 && e.path.startsWith(API))
    expect(refused.length).toBe(2 * bodies.length)
    // Bodies over 64 KiB are not kept; the others are shown down to the limit, then marked.
    const shown = refused.map((e) => JSON.stringify(e.request.body))
    for (const text of shown)
      expect(text).toMatch(/nested deeper than 100 levels: not shown|not kept/)
    expect(
      shown.filter((t) => t.includes('nested deeper than 100 levels')).length,
    ).toBeGreaterThanOrEqual(4)
    // Any page, any filter.
    const queries: Record<string, string>[] = [
      { limit: '1' },
      { status: '400' },
      { partner_id: DEFAULT_PARTNER.id },
    ]
    for (const query of queries) {
      expect((await journalOf(call, query)).length, JSON.stringify(query)).toBeGreaterThan(0)
    }
  })

  it('leaves the dashboard, the snapshot and the debug log whole', async () => {
    const { call, logs } = await sandboxWithDeepBodies()
    // A sink keeps any body as its text: taken, read back whole, logged cut.
    const sinkBody = arrays(5_000)
    const sent = await call('POST', '/_sandbox/sink/deep', {
      creds: null,
      raw: sinkBody,
      headers: { 'content-type': 'application/json' },
    })
    expect(sent.status, sent.text).toBeLessThan(300)
    const sink = await call('GET', '/_sandbox/sink/deep', { creds: null })
    expect(sink.status).toBe(200)
    expect(sink.json.data[0].body).toBe(sinkBody)
    const page = await call('GET', '/_sandbox', { creds: null })
    expect(page.status).toBe(200)
    const snapshot = await call('GET', '/_sandbox/snapshot', { creds: null })
    expect(snapshot.status).toBe(200)
    const restored = await call('POST', '/_sandbox/snapshot', { creds: null, body: snapshot.json })
    expect(restored.status, restored.text).toBe(200)
    // A snapshot nested past the limit is refused like any body, and the state stays readable.
    const deep = await call('POST', '/_sandbox/snapshot', {
      creds: null,
      raw: `{"version":1,"collections":{"users":${objects(5_000)}}}`,
      headers: { 'content-type': 'application/json' },
    })
    expect(deep.status).toBe(400)
    expect(deep.json.error.details).toEqual([expect.objectContaining({ field: 'collections' })])
    expect((await call('GET', '/_sandbox/snapshot', { creds: null })).status).toBe(200)
    // One debug line per request, each a whole line with the body cut at the limit.
    const refused = logs.filter((l) => /\b400\b/.test(l) && /PATCH|POST/.test(l))
    expect(refused.length).toBeGreaterThanOrEqual(routes.length * bodies.length)
    expect(logs.join('\n')).not.toMatch(/RangeError|Maximum call stack/)
    expect(logs.some((l) => l.includes('nested deeper than 100 levels: not shown'))).toBe(true)
  })

  it('in the X-Sandbox-Scenario header leaves the journal readable', async () => {
    const { call } = await setup()
    const res = await call('GET', `${API}/me`, {
      headers: { 'x-sandbox-scenario': arrays(5_000, '{}') },
    })
    expect(res.status).toBeLessThan(500)
    const [entry] = await journalOf(call, { limit: '1' })
    expect(entry.request.headers['x-sandbox-scenario']).toContain('nested deeper than 100')
  })
})

describe('JSON within the limit', () => {
  it('is taken at 100 levels, refused at 101', async () => {
    const { call } = await setup()
    const trigger = (depth: number) =>
      call('POST', '/_sandbox/events', {
        creds: null,
        raw: `{"partner_id":"${DEFAULT_PARTNER.id}","type":"card.funded","object":${objects(depth - 1)}}`,
        headers: { 'content-type': 'application/json' },
      })
    // The body's own object, then `object` and the levels below it: `depth` in all.
    const taken = await trigger(100)
    expect(taken.status, taken.text).toBe(201)
    const refused = await trigger(101)
    expect(refused.status).toBe(400)
    expect(refused.json.error.details).toEqual([
      expect.objectContaining({ field: 'object', location: 'body' }),
    ])
    const events = await call('GET', '/_sandbox/events?limit=1', { creds: null })
    expect(events.status).toBe(200)
    expect((await call('GET', '/_sandbox/snapshot', { creds: null })).status).toBe(200)
  })
})
