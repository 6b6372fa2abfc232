import { beforeAll, describe, expect, it } from 'vitest'
import { errorCodes } from '../src/errors.js'
import { registerAndLogin, setup, sharedSetup } from './helpers.js'
import { type OpenApiDoc, operationsOf } from './openapi-schema.js'

/**
 * What a partner's tools read in /openapi.json beyond the shapes: path parameters a generator
 * can fill (pattern and a real id), null where the spec allows it, every server error and
 * response header the sandbox sends, groups and descriptions, and the address it answers on.
 */

let doc: OpenApiDoc
const { call } = sharedSetup()
beforeAll(async () => {
  doc = (
    await call('GET', '/openapi.json', { creds: null, headers: { host: 'sandbox.test:4010' } })
  ).json
})

const pathParams = () =>
  operationsOf(doc).flatMap(({ method, path, op }) =>
    (op.parameters ?? [])
      .filter((p: OpenApiDoc) => p.in === 'path')
      .map((param: OpenApiDoc) => ({ method, path, op, param })),
  )

/** The one documented exception: spec section 4 answers 404 for an onboarding id it does not know. */
const COMPLETE = '/api/v1/partner/cards/onboarding/{onboardingId}/complete'

describe('path parameters', () => {
  it('each has a pattern and an example of a real id that matches it', () => {
    const params = pathParams()
    expect(params.length).toBeGreaterThan(40)
    for (const { op, param } of params) {
      const where = `${op.operationId} ${param.name}`
      expect(param.required, where).toBe(true)
      expect(param.schema.pattern, where).toEqual(expect.any(String))
      expect(param.example, where).toEqual(expect.any(String))
      expect(param.example, where).toMatch(new RegExp(param.schema.pattern))
    }
    const example = (operationId: string, name: string) =>
      params.find((p) => p.op.operationId === operationId && p.param.name === name)?.param.example
    expect(example('getWebhookDelivery', 'deliveryId')).toMatch(/^dlv_/)
    expect(example('getDeposit', 'id')).toMatch(/^dep_/)
    expect(example('completeCardOnboarding', 'onboardingId')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('a value outside the pattern is refused with a 400 naming the parameter', async () => {
    const { call } = await setup()
    const { bearer } = await registerAndLogin(call)
    const bad = 'not an id'
    for (const { method, path, op, param } of pathParams()) {
      const url = path.replaceAll(/\{(\w+)\}/g, (_: string, name: string) =>
        name === param.name ? encodeURIComponent(bad) : encodeURIComponent(exampleOf(op, name)),
      )
      const session = op.security?.some((s: object) => 'Session' in s)
      const res = await call(method.toUpperCase(), url, {
        creds: path.startsWith('/api/v1/') ? undefined : null,
        headers: session ? bearer : {},
        body:
          path === COMPLETE
            ? { result: 'pass', data: {}, agreement_accepted: true }
            : ['post', 'patch', 'put'].includes(method)
              ? {}
              : undefined,
      })
      const where = `${method} ${path} ${param.name}: ${res.status} ${res.text}`
      expect(new RegExp(param.schema.pattern).test(bad), where).toBe(false)
      if (path === COMPLETE) {
        expect(res.status, where).toBe(404)
        continue
      }
      expect(res.status, where).toBe(400)
      expect(res.json.error.details, where).toContainEqual(
        expect.objectContaining({ field: param.name, location: 'path' }),
      )
    }
  })
})

const exampleOf = (op: OpenApiDoc, name: string): string =>
  op.parameters.find((p: OpenApiDoc) => p.in === 'path' && p.name === name).example

describe('null where the spec allows it', () => {
  it('PATCH /partner/me takes webhook_url: null (spec: "URL or null")', () => {
    const patch = doc.components.schemas.PatchPartner
    expect(patch.properties.webhook_url.type).toEqual(['string', 'null'])
    expect(doc.components.schemas.Partner.properties.webhook_url.type).toEqual(['string', 'null'])
    const complete = doc.components.schemas.CompleteOnboarding
    expect(complete.properties.product_configuration.type).toContain('null')
  })
})

describe('server errors and response headers', () => {
  const serverStatuses = Object.values(errorCodes)
    .map((e) => String(e.status))
    .filter((s) => s >= '500')

  it('every operation declares each 5xx of the code table, in the error envelope', () => {
    expect(serverStatuses).toEqual(['500', '502', '503', '504', '507'])
    for (const { method, path, op } of operationsOf(doc)) {
      for (const status of serverStatuses) {
        // The health check's 503 is its own body: status "degraded" and the problems.
        if (path === '/_sandbox/health' && status === '503') continue
        const json = op.responses[status]?.content?.['application/json']
        expect(json?.schema, `${method} ${path} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        })
      }
    }
    const codes = doc.components.schemas.Error.properties.error.properties.code.enum
    expect(codes).toEqual(expect.arrayContaining(['internal_error', 'service_unavailable']))
  })

  it('every response declares X-Request-Id and the rate-limit headers; 429 and 503 Retry-After', () => {
    const headers = doc.components.headers
    expect(headers['X-Request-Id'].required).toBe(true)
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
      expect(headers[name].schema, name).toEqual({ $ref: expect.stringMatching(/^#\/components/) })
    }
    for (const { method, path, op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses) as [string, OpenApiDoc][]) {
        const names = Object.keys(response.headers ?? {})
        const where = `${method} ${path} ${status}`
        expect(names, where).toEqual(
          expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']),
        )
        if (status === '429' || status === '503') expect(names, where).toContain('Retry-After')
        for (const name of names) {
          expect(headers[response.headers[name].$ref.split('/').pop()], where).toBeDefined()
        }
      }
    }
  })

  it('an answer carries the headers its response declares, an injected 503 included', async () => {
    const { call } = await setup()
    const ok = await call('GET', '/api/v1/partner/me')
    for (const name of ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining'])
      expect(ok.headers.get(name), name).toMatch(/^\S+$/)
    const fault = await call('GET', '/api/v1/partner/me', { headers: { prefer: 'code=503' } })
    expect(fault.status).toBe(503)
    expect(fault.json.error.code).toBe('service_unavailable')
    expect(fault.headers.get('retry-after')).toBe('1')
    expect(fault.headers.get('x-request-id')).toBe(fault.json.requestId)
  })
})

describe('typed answers and step bodies', () => {
  it("a user's addresses are the Address of the requests", () => {
    const user = doc.components.schemas.User.properties
    // Beside each $ref: its provenance (x-provenance and a sentence), as on every field.
    expect(user.address).toMatchObject({ $ref: '#/components/schemas/Address' })
    expect(user.secondary_address).toMatchObject({ $ref: '#/components/schemas/Address' })
    const patch = doc.components.schemas.PatchUser.properties
    expect(patch.address).toMatchObject({ $ref: '#/components/schemas/Address' })
  })

  it('each hosted-flow step takes its own typed body', () => {
    const bodies = Object.fromEntries(
      ['identity_verification', 'underwriting', 'agreement'].map((step) => {
        const op = doc.paths[`/embed/onboarding/{onboardingId}/steps/${step}`].post
        return [step, op.requestBody.content['application/json'].schema.$ref]
      }),
    )
    expect(bodies).toEqual({
      identity_verification: '#/components/schemas/IdentityVerificationStep',
      underwriting: '#/components/schemas/UnderwritingStep',
      agreement: '#/components/schemas/AgreementStep',
    })
    const underwriting = doc.components.schemas.UnderwritingStep
    expect(underwriting.required).toEqual(['employment_status', 'annual_income', 'source_of_funds'])
    expect(underwriting.properties.annual_income.enum).toContain('50k_100k')
  })
})

describe('groups, descriptions and the server', () => {
  it('every tag an operation uses is described at the top level', () => {
    const described = new Map<string, string>(
      doc.tags.map((t: { name: string; description: string }) => [t.name, t.description]),
    )
    for (const { method, path, op } of operationsOf(doc)) {
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0)
      for (const tag of op.tags) expect(described.get(tag), tag).toMatch(/\w{3}/)
    }
  })

  it('every operation has a description, saying what its caller needs', () => {
    for (const { method, path, op } of operationsOf(doc)) {
      expect(op.description, `${method} ${path}`).toMatch(
        /Public: needs no credentials|X-Partner-Key|admin token|accessToken/,
      )
    }
    expect(doc.paths['/api/v1/partner/users/me'].get.description).toContain('Authorization: Bearer')
  })

  it('names the absolute URL this request reached the sandbox at, or --public-url', async () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://sandbox.test:4010' })])
    const { call } = await setup({ publicUrl: 'https://sandbox.acme.example/' })
    const pinned = (await call('GET', '/openapi.json', { creds: null })).json
    expect(pinned.servers[0].url).toBe('https://sandbox.acme.example')
    expect(pinned.paths).toEqual(doc.paths)
  })
})
