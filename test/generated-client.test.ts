import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import createClient from 'openapi-fetch'
import openapiTS, { astToString } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { engineOptions } from './helpers.js'
import { type OpenApiDoc, responseSchema, schemaValidator } from './openapi-schema.js'

/**
 * What a partner does on day one: generate a typed client from the live /openapi.json with
 * openapi-typescript, call the API through openapi-fetch, and walk the spec's happy path
 * (register, login, OTP from the inbox, verify, onboarding start and complete, simulate-fund,
 * status, transactions). Every response must match the document's schema for its status.
 */

let sandbox: RunningSandbox
let doc: OpenApiDoc
let types: string

beforeAll(async () => {
  sandbox = await startSandbox({ ...engineOptions(), port: 0, logLevel: 'silent' })
  doc = await (await fetch(`${sandbox.url}/openapi.json`)).json()
  types = astToString(await openapiTS(doc))
})
afterAll(() => sandbox?.close())

const happyPath = `
import createClient from 'openapi-fetch'
import type { paths } from './api.js'

export async function run(baseUrl: string, key: string, secret: string) {
  const api = createClient<paths>({
    baseUrl,
    headers: { 'X-Partner-Key': key, 'X-Partner-Secret': secret },
  })
  await api.POST('/api/v1/partner/auth/register', {
    body: {
      email: 'jane@example.com',
      phone_number: '+14155550123',
      first_name: 'Jane',
      last_name: 'Doe',
      password: 'Sandbox-Passw0rd!',
      ssn: '123-45-6789',
      date_of_birth: '1990-04-12',
    },
  })
  await api.POST('/api/v1/partner/auth/login', {
    body: { email: 'jane@example.com', password: 'Sandbox-Passw0rd!' },
  })
  const otp = await api.POST('/api/v1/partner/auth/verify-otp', {
    body: { email: 'jane@example.com', code: '000000' },
  })
  const token: string | undefined = otp.data?.sessionToken
  const auth = { Authorization: \`Bearer \${token}\` }
  const start = await api.POST('/api/v1/partner/cards/onboarding', { headers: auth, body: {
    first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com', phone_number: '+14155550123',
    country_code: 'US', date_of_birth: '1990-04-12', address_line1: '1 Main Street',
    address_city: 'Springfield', address_state: 'IL', address_zip: '62701', ssn: '123-45-6789',
  } })
  const onboardingId: string = start.data?.data.onboardingId ?? ''
  // The hosted flow, walked without a browser; the completion forwards what it recorded.
  const walked = await api.POST('/_sandbox/onboardings/{id}/walk', {
    params: { path: { id: onboardingId } },
    body: { end: 'passed' },
  })
  const flow = walked.data?.flow
  await api.POST('/api/v1/partner/cards/onboarding/{onboardingId}/complete', {
    headers: auth,
    params: { path: { onboardingId } },
    body: {
      result: flow?.result ?? 'fail',
      data: flow?.data ?? {},
      agreement_accepted: flow?.agreementAccepted ?? false,
    },
  })
  const fund = await api.POST('/api/v1/partner/cards/simulate-fund', { headers: auth, body: { amount: 25 } })
  const balance: number | undefined = fund.data?.availableBalance
  await api.GET('/api/v1/partner/cards/status', { headers: auth })
  const txns = await api.GET('/api/v1/partner/cards/transactions', {
    headers: auth,
    params: { query: { limit: 10 } },
  })
  return { balance, txns: txns.data }
}
`

/**
 * What the document's own additions give a strict client, with no cast: clearing the webhook
 * (webhook_url null), a user's typed address, a typed error on an injected 503, the hosted
 * flow's typed step bodies (a misspelt field does not compile), and the absolute server URL.
 */
const contractPath = `
import createClient from 'openapi-fetch'
import type { paths } from './api.js'

export async function run(baseUrl: string, key: string, secret: string, token: string, onboardingId: string, accessToken: string) {
  const api = createClient<paths>({ baseUrl, headers: { 'X-Partner-Key': key, 'X-Partner-Secret': secret } })
  const cleared = await api.PATCH('/api/v1/partner/me', { body: { webhook_url: null } })
  const webhookUrl: string | null | undefined = cleared.data?.partner.webhook_url
  const me = await api.GET('/api/v1/partner/users/me', { headers: { Authorization: \`Bearer \${token}\` } })
  const city: string | undefined = me.data?.address.city
  const down = await api.GET('/api/v1/partner/me', { headers: { Prefer: 'code=503' } })
  const code: 'service_unavailable' | 'internal_error' | 'bad_gateway' | 'gateway_timeout' | string | undefined = down.error?.error.code
  const step = { params: { path: { onboardingId } }, headers: { Authorization: \`Bearer \${accessToken}\` } }
  await api.POST('/embed/onboarding/{onboardingId}/steps/identity_verification', { ...step, body: { confirmed: true } })
  await api.POST('/embed/onboarding/{onboardingId}/steps/underwriting', {
    ...step,
    body: { employment_status: 'employed', annual_income: '50k_100k', source_of_funds: 'salary' },
  })
  // @ts-expect-error a misspelt field of a step body does not compile
  await api.POST('/embed/onboarding/{onboardingId}/steps/agreement', { ...step, body: { acepted: true } })
  return { webhookUrl, city, code }
}
`

describe('a client generated from /openapi.json', () => {
  it('openapi-typescript generates types with every operation, and the happy path type-checks against them', async () => {
    for (const id of ['registerUser', 'verifyOtp', 'startCardOnboarding', 'simulateFund']) {
      expect(types).toContain(`${id}: {`)
    }
    const dir = mkdtempSync(join(process.cwd(), 'node_modules/.cache-generated-client-'))
    writeFileSync(join(dir, 'api.ts'), types)
    writeFileSync(join(dir, 'happy-path.ts'), happyPath)
    const tsc = join(process.cwd(), 'node_modules/.bin/tsc')
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext']
    args.push('--target', 'es2022', '--skipLibCheck', join(dir, 'happy-path.ts'))
    const result = await promisify(execFile)(tsc, args, { cwd: dir }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    )
    rmSync(dir, { recursive: true, force: true })
    expect(result).toBe('')
  }, 120_000)

  it("the document's nulls, addresses, server errors and step bodies type-check with no cast", async () => {
    const dir = mkdtempSync(join(process.cwd(), 'node_modules/.cache-generated-client-'))
    writeFileSync(join(dir, 'api.ts'), types)
    writeFileSync(join(dir, 'contract-path.ts'), contractPath)
    const tsc = join(process.cwd(), 'node_modules/.bin/tsc')
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext']
    args.push('--target', 'es2022', '--skipLibCheck', join(dir, 'contract-path.ts'))
    const result = await promisify(execFile)(tsc, args, { cwd: dir }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    )
    rmSync(dir, { recursive: true, force: true })
    expect(result).toBe('')
    expect(doc.servers[0].url).toBe(sandbox.url)
  }, 120_000)

  it('runs the spec happy path; every response matches its schema', async () => {
    const check = schemaValidator(doc)
    const seen: string[] = []
    // biome-ignore lint/suspicious/noExplicitAny: the typed variant is checked by tsc above
    const api = createClient<any>({
      baseUrl: sandbox.url,
      headers: {
        'X-Partner-Key': DEFAULT_PARTNER.api_key,
        'X-Partner-Secret': DEFAULT_PARTNER.api_secret,
      },
    })
    api.use({
      async onResponse({ request, response, schemaPath }) {
        const method = request.method
        const body = await response.clone().json()
        const schema = responseSchema(doc, method, schemaPath, response.status)
        expect(schema, `${method} ${schemaPath} ${response.status} is documented`).toBeDefined()
        expect(check(schema, body), `${method} ${schemaPath} ${response.status}`).toEqual([])
        seen.push(`${method} ${schemaPath} ${response.status}`)
        return undefined
      },
    })
    const email = `jane.${Date.now()}@example.com`
    const password = 'Sandbox-Passw0rd!'
    const reg = await api.POST('/api/v1/partner/auth/register', {
      body: {
        email,
        phone_number: '+14155550123',
        first_name: 'Jane',
        last_name: 'Doe',
        password,
        ssn: '123-45-6789',
        date_of_birth: '1990-04-12',
      },
    })
    expect(reg.response.status).toBe(201)
    const login = await api.POST('/api/v1/partner/auth/login', { body: { email, password } })
    expect(login.response.status).toBe(200)
    // The OTP from the sandbox inbox, through the generated client too.
    const inbox = await api.GET('/_sandbox/inbox', {
      params: { query: { kind: 'login_code', email } },
    })
    const code = inbox.data.data[0].code
    const otp = await api.POST('/api/v1/partner/auth/verify-otp', { body: { email, code } })
    expect(otp.response.status).toBe(200)
    const headers = { Authorization: `Bearer ${otp.data.sessionToken}` }
    const start = await api.POST('/api/v1/partner/cards/onboarding', {
      headers,
      body: {
        first_name: 'Jane',
        last_name: 'Doe',
        email,
        phone_number: '+14155550123',
        country_code: 'US',
        date_of_birth: '1990-04-12',
        address_line1: '1 Main Street',
        address_city: 'Springfield',
        address_state: 'IL',
        address_zip: '62701',
        ssn: '123-45-6789',
      },
    })
    expect(start.response.status).toBe(200)
    const onboardingId = start.data.data.onboardingId
    const walked = await api.POST('/_sandbox/onboardings/{id}/walk', {
      params: { path: { id: onboardingId } },
      body: { end: 'passed' },
    })
    expect(walked.data.flow).toMatchObject({ result: 'pass', agreementAccepted: true })
    const done = await api.POST('/api/v1/partner/cards/onboarding/{onboardingId}/complete', {
      headers,
      params: { path: { onboardingId } },
      body: { result: 'pass', data: { inquiry: 'done' }, agreement_accepted: true },
    })
    expect(done.response.status).toBe(200)
    expect(done.data.data.card.status).toBe('active')
    const fund = await api.POST('/api/v1/partner/cards/simulate-fund', {
      headers,
      body: { amount: 25.5 },
    })
    expect(fund.response.status).toBe(200)
    expect(fund.data.availableBalance).toBe(25.5)
    const status = await api.GET('/api/v1/partner/cards/status', { headers })
    expect(status.data.data.balances.available).toBe(25.5)
    const txns = await api.GET('/api/v1/partner/cards/transactions', {
      headers,
      params: { query: { limit: 10 } },
    })
    expect(txns.data.data.data[0]).toMatchObject({ type: 'funding', amount: 25.5 })
    expect(seen).toEqual([
      'POST /api/v1/partner/auth/register 201',
      'POST /api/v1/partner/auth/login 200',
      'GET /_sandbox/inbox 200',
      'POST /api/v1/partner/auth/verify-otp 200',
      'POST /api/v1/partner/cards/onboarding 200',
      'POST /_sandbox/onboardings/{id}/walk 200',
      'POST /api/v1/partner/cards/onboarding/{onboardingId}/complete 200',
      'POST /api/v1/partner/cards/simulate-fund 200',
      'GET /api/v1/partner/cards/status 200',
      'GET /api/v1/partner/cards/transactions 200',
    ])
  })
})
