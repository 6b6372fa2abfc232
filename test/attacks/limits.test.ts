import { beforeAll, describe, expect, it } from 'vitest'
import {
  acme,
  connectBank,
  createPartner,
  onboardedUser,
  orgHeaders,
  setup,
  sharedSetup,
} from '../helpers.js'

/**
 * `limit` everywhere a list is returned, and only as a plain decimal integer: `0x10`, `1e2`
 * and ` 5` were taken (Number() reads them), and the bank accounts list and the partners list
 * ignored `limit` altogether. The operations are read from /openapi.json, so a list added
 * later is held to the same rule.
 */

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked by hand
type Doc = any

const NOT_DECIMAL = ['0x10', '1e2', ' 5', '5 ', '+5', '-1', '5.0', '5.', '', '٥', 'NaN', 'ten']
const OUT_OF_RANGE = ['0', '100000', '99999999999999999999']

const { call } = sharedSetup({ rateLimit: 'off' })
let headers: Record<string, string>
let doc: Doc

/** Ids of the right form for path parameters (the query is checked before the lookup). */
const pathValues: Record<string, string> = {
  id: 'wh_doesNotExist1',
  name: 'limits',
  deliveryId: 'dlv_doesNotExist1',
}

const resolve = (schema: Doc): Doc =>
  schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split('/').pop()]) : schema

/** True when a 200 answers a page: `{ data: [...], has_more }`, enveloped or not. */
function answersAPage(op: Doc): boolean {
  const schema = resolve(op.responses?.['200']?.content?.['application/json']?.schema)
  const isPage = (s: Doc) => s?.properties?.has_more && resolve(s.properties.data)?.type === 'array'
  return isPage(schema) || isPage(resolve(schema?.properties?.data))
}

const listOperations = () =>
  Object.entries(doc.paths as Record<string, Record<string, Doc>>).flatMap(([path, ops]) =>
    ops.get && answersAPage(ops.get) ? [{ path, op: ops.get }] : [],
  )

const limitOf = (op: Doc) =>
  (op.parameters ?? []).find((p: Doc) => p.name === 'limit' && p.in === 'query')

// A partner's control routes take a partner id (a uuid): one no partner has, so only `limit`
// can be what a 400 names.
const partnerIdValue = '00000000-0000-4000-8000-000000000000'

const urlFor = (path: string, limit: string) =>
  `${path.replace(/\{(\w+)\}/g, (_, name) =>
    name === 'id' && path.startsWith('/_sandbox/partners/')
      ? partnerIdValue
      : (pathValues[name] ?? 'x'),
  )}?limit=${encodeURIComponent(limit)}`

beforeAll(async () => {
  const user = await onboardedUser(call)
  headers = { ...orgHeaders(acme), ...user.bearer }
  await connectBank(call, user.bearer)
  await connectBank(call, user.bearer)
  doc = (await call('GET', '/openapi.json', { creds: null })).json
})

describe('limit', () => {
  it('is taken by every operation that answers a page, as an integer with bounds', () => {
    const lists = listOperations()
    expect(lists.map((l) => l.path)).toEqual(
      expect.arrayContaining([
        '/api/v1/external-bank-account-connect/accounts',
        '/_sandbox/partners',
        '/_sandbox/rules',
        '/api/v1/partner/cards/transactions',
      ]),
    )
    // What answers a whole list without paging is a fixed catalogue, not a history.
    const whole = Object.entries(doc.paths as Record<string, Record<string, Doc>>)
      .filter(([, ops]) => {
        const schema = resolve(ops.get?.responses?.['200']?.content?.['application/json']?.schema)
        return resolve(schema?.properties?.data)?.type === 'array' && !answersAPage(ops.get)
      })
      .map(([path]) => path)
    expect(whole.sort()).toEqual(['/_sandbox/scenarios', '/api/v1/partner/webhooks/events'])
    for (const { path, op } of lists) {
      const limit = limitOf(op)
      expect(limit, path).toBeDefined()
      expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1 })
      expect(limit.schema.maximum, path).toBeGreaterThanOrEqual(100)
    }
  })

  it('is refused with a 400 naming it unless written in decimal digits, and in range', async () => {
    for (const { path } of listOperations()) {
      for (const bad of [...NOT_DECIMAL, ...OUT_OF_RANGE]) {
        const res = await call('GET', urlFor(path, bad), { creds: null, headers })
        const label = `${path} limit=${JSON.stringify(bad)}`
        expect(res.status, `${label}: ${res.text}`).toBe(400)
        expect(res.json.error.details, label).toEqual([
          expect.objectContaining({ field: 'limit', location: 'query' }),
        ])
      }
      const fine = await call('GET', urlFor(path, '5'), { creds: null, headers })
      expect(fine.status, `${path} limit=5: ${fine.text}`).not.toBe(400)
      // Leading zeros are still decimal digits.
      const padded = await call('GET', urlFor(path, '05'), { creds: null, headers })
      expect(padded.status, `${path} limit=05`).toBe(fine.status)
    }
  })

  it('pages the bank accounts list with starting_after, newest first', async () => {
    const all = await call('GET', '/api/v1/external-bank-account-connect/accounts', { headers })
    expect(all.json.data).toMatchObject({ has_more: false })
    const [newest, older] = all.json.data.data
    expect(all.json.data.data).toHaveLength(2)
    const first = await call('GET', '/api/v1/external-bank-account-connect/accounts?limit=1', {
      headers,
    })
    expect(first.json.data).toEqual({ data: [newest], has_more: true })
    const next = await call(
      'GET',
      `/api/v1/external-bank-account-connect/accounts?limit=1&starting_after=${newest.id}`,
      { headers },
    )
    expect(next.json.data).toEqual({ data: [older], has_more: false })
  })

  it('pages the control plane partners list with starting_after, oldest first', async () => {
    const { call: fresh } = await setup()
    await createPartner(fresh, { name: 'Third' })
    const all = (await fresh('GET', '/_sandbox/partners', { creds: null })).json
    expect(all.has_more).toBe(false)
    expect(all.data.length).toBe(3)
    const first = (await fresh('GET', '/_sandbox/partners?limit=2', { creds: null })).json
    expect(first).toEqual({ data: all.data.slice(0, 2), has_more: true })
    const rest = await fresh(
      'GET',
      `/_sandbox/partners?limit=2&starting_after=${first.data[1].id}`,
      { creds: null },
    )
    expect(rest.json).toEqual({ data: all.data.slice(2), has_more: false })
  })
})
