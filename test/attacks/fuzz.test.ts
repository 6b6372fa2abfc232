import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { acme, loginAs, orgHeaders, sharedSetup, snapshotOf } from '../helpers.js'

/**
 * Property-based fuzz over every operation of /openapi.json: path parameters, query
 * strings, bodies (well-formed JSON with the operation's own field names and wrong values,
 * malformed JSON, other content types) chosen by fast-check with a fixed seed. Whatever
 * arrives: never a 5xx, a 4xx is always our envelope, and a rejected request changes
 * nothing (the store export is the same before and after).
 */

const SEED = 20_261_123
const RUNS_PER_OPERATION = 15

interface Operation {
  method: string
  path: string
  fields: string[]
  query: string[]
}

/**
 * Rejections that change state by design: a wrong one-time code counts against the code
 * (five wrong tries burn it), as docs/sessions.md says.
 */
const changesOnRejection = new Set([
  'POST /api/v1/partner/auth/verify-otp',
  'POST /api/v1/partner/auth/forgot-password/verify',
])

/**
 * Left out: these change the sandbox's own behaviour for later requests (a rule answers
 * 500 on purpose; a scenario can script failures), which would blame the wrong operation.
 */
const excluded =
  /^(POST|PUT|DELETE) \/_sandbox\/(rules|partners\/\{id\}\/rules|scenario|scenarios|reset)/

const { call } = sharedSetup({ seed: 5, rateLimit: 'off' })
let headers: Record<string, string>
let operations: Operation[]

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked by hand
type Doc = any

function fieldsOf(doc: Doc, schema: Doc): string[] {
  if (!schema) return []
  if (schema.$ref) return fieldsOf(doc, doc.components.schemas[schema.$ref.split('/').pop()])
  const parts = [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]
  return [...Object.keys(schema.properties ?? {}), ...parts.flatMap((p: Doc) => fieldsOf(doc, p))]
}

beforeAll(async () => {
  const token = await loginAs(call, 'jaeden_grant51@example.com')
  headers = { ...orgHeaders(acme), authorization: `Bearer ${token}` }
  const doc: Doc = (await call('GET', '/openapi.json', { creds: null })).json
  operations = Object.entries(doc.paths as Record<string, Record<string, Doc>>).flatMap(
    ([path, ops]) =>
      Object.entries(ops)
        .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map(([m, op]) => ({
          method: m.toUpperCase(),
          path,
          fields: fieldsOf(doc, op.requestBody?.content?.['application/json']?.schema),
          query: (op.parameters ?? [])
            .filter((p: Doc) => p.in === 'query')
            .map((p: Doc) => p.name as string),
        }))
        .filter((o) => !excluded.test(`${o.method} ${o.path}`)),
  )
}, 60_000)

const nasty = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'null',
  'true',
  '../../etc/passwd',
  '%00',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '\u0000',
  '\ud800',
  'a'.repeat(5000),
  '__proto__',
  'constructor',
  'txn_',
  '00000000-0000-0000-0000-000000000000',
)
const text = fc.oneof(
  nasty,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
)
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  text,
  fc.integer(),
  fc.double(),
  fc.constant(null),
)

function bodyArb(fields: string[]) {
  const keys = fields.length > 0 ? fc.oneof(fc.constantFrom(...fields), text) : text
  const object = fc.dictionary(keys, value, { maxKeys: 6 })
  return fc.oneof(
    object.map((o) => ({ raw: JSON.stringify(o), type: 'application/json' })),
    fc
      .jsonValue({ maxDepth: 3 })
      .map((v) => ({ raw: JSON.stringify(v), type: 'application/json' })),
    text.map((t) => ({ raw: t, type: 'application/json' })),
    fc
      .tuple(
        object,
        fc.constantFrom(
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json; charset=latin1',
          'multipart/form-data; boundary=x',
        ),
      )
      .map(([o, type]) => ({ raw: JSON.stringify(o), type })),
    fc.constant(undefined),
  )
}

const HTML_PAGES = new Set(['/api/v1/external-bank-account-connect/connect', '/embed/onboarding'])

describe('fuzz over every operation of /openapi.json', () => {
  it('covers the whole document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(60)
  })

  it('never answers 5xx, always the envelope, and a rejection changes nothing', async () => {
    let requests = 0
    for (const op of operations) {
      const params = op.path.match(/\{\w+\}/g) ?? []
      await fc.assert(
        fc.asyncProperty(
          fc.array(text, { minLength: params.length, maxLength: params.length }),
          fc.dictionary(fc.oneof(fc.constantFrom(...op.query, 'limit'), text), text, {
            maxKeys: 3,
          }),
          bodyArb(op.fields),
          fc.boolean(),
          async (values, query, body, authenticated) => {
            let i = 0
            const path = op.path.replace(/\{\w+\}/g, () => encodeURIComponent(values[i++] ?? ''))
            const qs = new URLSearchParams(query).toString()
            const url = `${path}${qs ? `?${qs}` : ''}`
            const before = await snapshotOf(call)
            const res = await call(op.method, url, {
              creds: null,
              headers: {
                ...(authenticated ? headers : {}),
                ...(body && op.method !== 'GET' ? { 'content-type': body.type } : {}),
              },
              raw: op.method === 'GET' ? undefined : body?.raw,
            })
            requests++
            const label = `${op.method} ${url.slice(0, 200)} ${body?.type ?? ''} ${String(body?.raw).slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`
            expect(res.status, label).toBeLessThan(500)
            expect(res.headers.get('x-request-id'), label).toBeTruthy()
            if (res.status >= 400) {
              if (!(HTML_PAGES.has(op.path) && op.method === 'GET')) {
                expect(res.json, label).toMatchObject({
                  success: false,
                  error: { code: expect.any(String), message: expect.any(String) },
                  requestId: expect.any(String),
                })
              }
              if (!changesOnRejection.has(`${op.method} ${op.path}`)) {
                expect(await snapshotOf(call), label).toBe(before)
              }
            }
          },
        ),
        { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      )
    }
    expect(requests).toBeGreaterThanOrEqual(operations.length * RUNS_PER_OPERATION)
  }, 180_000)
})
