import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { sharedSetup } from './helpers.js'
import { type OpenApiDoc, operationsOf, schemaValidator } from './openapi-schema.js'

/**
 * The OpenAPI document is fit for client generators: every operation named (operationId,
 * unique, camelCase), public operations marked `security: []`, every request and response
 * with an example that conforms to its own schema, and Redocly's recommended rules clean.
 * Routes added later fail here until they comply.
 */

let doc: OpenApiDoc
const { call } = sharedSetup()
beforeAll(async () => {
  doc = (await call('GET', '/openapi.json', { creds: null })).json
})

describe('the OpenAPI document, for generators', () => {
  it('every operation has a unique camelCase operationId', () => {
    const ops = operationsOf(doc)
    expect(ops.length).toBeGreaterThan(80)
    const missing = ops.filter((o) => !o.op.operationId).map((o) => `${o.method} ${o.path}`)
    expect(missing, 'operations without operationId').toEqual([])
    const names = ops.map((o) => o.op.operationId as string)
    const dupes = names.filter((n, i) => names.indexOf(n) !== i)
    expect(dupes, 'duplicate operationIds').toEqual([])
    for (const name of names) expect(name).toMatch(/^[a-z][a-zA-Z0-9]*$/)
    const byRoute = Object.fromEntries(ops.map((o) => [`${o.method} ${o.path}`, o.op.operationId]))
    expect(byRoute).toMatchObject({
      'post /api/v1/partner/auth/register': 'registerUser',
      'post /api/v1/partner/auth/login': 'loginUser',
      'post /api/v1/partner/auth/verify-otp': 'verifyOtp',
      'post /api/v1/partner/cards/onboarding': 'startCardOnboarding',
      'post /api/v1/partner/cards/onboarding/{onboardingId}/complete': 'completeCardOnboarding',
      'post /api/v1/partner/cards/simulate-fund': 'simulateFund',
      'get /api/v1/partner/me': 'getPartner',
      'get /_sandbox/health': 'getSandboxHealth',
    })
  })

  it('public operations need no credentials: security is empty', () => {
    const publicOps = [
      'get /api/v1/external-bank-account-connect/connect',
      'post /api/v1/external-bank-account-connect/enrollment/public',
      'get /_sandbox/health',
      'post /_sandbox/sink/{name}',
    ]
    for (const { method, path, op } of operationsOf(doc)) {
      const key = `${method} ${path}`
      if (publicOps.includes(key)) expect(op.security, key).toEqual([])
      else expect(op.security?.length, key).toBeGreaterThan(0)
    }
  })

  it('PATCH bodies that the server rejects when empty say minProperties: 1', () => {
    const body = (path: string, method = 'patch') => {
      const schema = doc.paths[path][method].requestBody.content['application/json'].schema
      return schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema
    }
    expect(body('/api/v1/partner/me').minProperties).toBe(1)
    expect(body('/api/v1/partner/webhooks/{id}').minProperties).toBe(1)
    expect(body('/_sandbox/partners/{id}').minProperties).toBe(1)
  })

  it('every request and response media type has an example that conforms to its schema', () => {
    const check = schemaValidator(doc)
    const missing: string[] = []
    const invalid: string[] = []
    for (const { method, path, op } of operationsOf(doc)) {
      const bodies: [string, Record<string, OpenApiDoc> | undefined][] = [
        ['request', op.requestBody?.content],
        ...Object.entries(op.responses ?? {}).map(
          ([status, r]) => [String(status), (r as OpenApiDoc).content] as [string, OpenApiDoc],
        ),
      ]
      for (const [what, content] of bodies) {
        for (const [type, media] of Object.entries(content ?? {})) {
          const where = `${method.toUpperCase()} ${path} ${what} ${type}`
          const example =
            media.example ?? (Object.values(media.examples ?? {})[0] as OpenApiDoc)?.value
          if (example === undefined) missing.push(where)
          else if (type === 'application/json') {
            const problems = check(media.schema, example)
            if (problems.length) invalid.push(`${where}: ${problems.join('; ')}`)
          }
        }
      }
    }
    expect(missing, 'media types without an example').toEqual([])
    expect(invalid, 'examples that do not match their schema').toEqual([])
  })

  it('passes `redocly lint` with the recommended rules: 0 errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redocly-'))
    const file = join(dir, 'openapi.json')
    writeFileSync(file, JSON.stringify(doc))
    const bin = join(process.cwd(), 'node_modules/.bin/redocly')
    let out: string
    try {
      const run = await promisify(execFile)(
        bin,
        ['lint', '--extends=recommended', '--format=json', file],
        // Offline: no telemetry, no update check.
        {
          cwd: dir,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      )
      out = run.stdout
    } catch (error) {
      out = (error as { stdout: string }).stdout
    }
    const report = JSON.parse(out.slice(out.indexOf('{')))
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error')
    expect(
      errors.map((p: { ruleId: string; message: string; location: { pointer: string }[] }) => {
        return `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`
      }),
    ).toEqual([])
    expect(report.totals.errors).toBe(0)
  }, 60_000)
})
