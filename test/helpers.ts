import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, onTestFinished } from 'vitest'
import type { InternalOptions } from '../src/compose.js'
import {
  createControlClient,
  createSandbox,
  type RunningSandbox,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from '../src/index.js'
import { DEFAULT_PARTNER, SECOND_PARTNER } from '../src/store/default-credentials.js'
import { freshDatabaseUrl } from './postgres.js'

export const acme: Creds = { key: DEFAULT_PARTNER.api_key, secret: DEFAULT_PARTNER.api_secret }
export const northwind: Creds = { key: SECOND_PARTNER.api_key, secret: SECOND_PARTNER.api_secret }
export type Creds = { key: string; secret: string }

export const orgHeaders = (creds: Creds) => ({
  'x-partner-key': creds.key,
  'x-partner-secret': creds.secret,
})

export interface CallOptions {
  creds?: Creds | null
  body?: unknown
  /** Sent as-is (no JSON encoding) when a string. */
  raw?: string
  headers?: Record<string, string>
}

/** An answer as the tests' client reads it: status, headers, the body's JSON and its text. */
export interface Answer {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert each one
  json: any
  text: string
}

/** The tests' client (see `client`). */
export type Call = (method: string, path: string, opts?: CallOptions) => Promise<Answer>

/** A test's sandbox and its client. */
export interface TestSandbox {
  sandbox: Sandbox
  call: Call
}

/**
 * The tests' client: org headers (unless `creds: null`), a JSON body, and the answer with
 * its JSON read, over whatever sends the request (app.request, or fetch on a socket).
 */
function client(send: (path: string, init: RequestInit) => Response | Promise<Response>): Call {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = {
      ...(opts.creds === null ? {} : orgHeaders(opts.creds ?? acme)),
    }
    let body: string | undefined
    if (opts.raw !== undefined) body = opts.raw
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] = 'application/json'
    }
    const res = await send(path, { method, body, headers: { ...headers, ...opts.headers } })
    const text = await res.text()
    // biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert each one
    let json: any
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, json, text }
  }
}

/**
 * A fresh sandbox and a small client over `app.request()`: in memory, or, in the run of the
 * PostgreSQL engine (vitest project `postgres`), on a new schema of the test server. `internal`
 * shortens real-time waits a test would otherwise sit through (compose.ts InternalOptions).
 */
async function testSandbox(
  options: SandboxOptions = {},
  internal: InternalOptions = {},
): Promise<TestSandbox> {
  const sandbox = await createSandbox(
    { logLevel: 'silent', ...engineOptions(options), ...options },
    internal,
  )
  open.add(sandbox)
  const close = sandbox.close
  // Once: a test that closes its sandbox itself (to open its data file again, say) is not
  // closed a second time when it ends.
  let closing: Promise<void> | undefined
  sandbox.close = () => {
    open.delete(sandbox)
    closing ??= close()
    return closing
  }
  const call = client((path, init) => sandbox.app.request(path, init))
  return { sandbox, call }
}

/** Test sandboxes not closed yet: what a test file leaves open is closed when it ends. */
const open = new Set<Sandbox>()

/**
 * Closes every test sandbox still open (test/file-setup.ts, after each file): test files share
 * their worker (isolate: false), and a sandbox left open would sweep and deliver on its timers
 * through every file after it.
 */
export async function closeOpenSandboxes(): Promise<void> {
  await Promise.all([...open].map((sandbox) => sandbox.close()))
}

export interface TestSetup {
  /** Freeze the sandbox clock: at this instant, or now with `true`. */
  frozenAt?: number | true
  /** Real-time waits shortened (compose.ts InternalOptions). */
  internal?: InternalOptions
}

/**
 * The one setup of a test: a fresh sandbox and its client (testSandbox), closed when the test
 * ends, its clock frozen if asked. Call it inside the test that uses it, or in a `beforeEach`.
 */
export async function setup(
  options: SandboxOptions = {},
  { frozenAt, internal }: TestSetup = {},
): Promise<TestSandbox> {
  const t = await testSandbox(options, internal)
  onTestFinished(() => t.sandbox.close())
  if (frozenAt !== undefined) t.sandbox.clock.freeze(frozenAt === true ? undefined : frozenAt)
  return t
}

/**
 * setup()'s sandbox served on a socket of 127.0.0.1 (a free port), for what needs a real
 * address: a webhook aimed at it, a CLI, fetch. Closed when the test ends.
 */
export async function servedForTest(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const sandbox = await startSandbox(servedOptions(options))
  onTestFinished(() => sandbox.close())
  return sandbox
}

/** A served test sandbox's options: silent, this run's engine, a free port of 127.0.0.1. */
const servedOptions = (options: SandboxOptions): SandboxOptions => ({
  logLevel: 'silent',
  ...engineOptions(options),
  port: 0,
  ...options,
})

/**
 * The typed control client of a served sandbox that a file's tests share (made and closed as
 * sharedSetup's), its control plane guarded by `adminToken`. Call it at the top of the file.
 */
export function sharedControlClient(adminToken: string) {
  let served: { sandbox: RunningSandbox; control: ControlClient } | undefined
  const made = () => {
    if (!served) throw new Error('sharedControlClient: its sandbox is made when the tests start')
    return served
  }
  beforeAll(async () => {
    const sandbox = await startSandbox(servedOptions({ adminToken }))
    served = { sandbox, control: createControlClient(sandbox.url, { adminToken }) }
  })
  afterAll(() => served?.sandbox.close())
  return {
    get sandbox(): RunningSandbox {
      return made().sandbox
    },
    get control(): ControlClient {
      return made().control
    },
  }
}

type ControlClient = ReturnType<typeof createControlClient>

/**
 * The setup of tests that share one sandbox (a file's, or a describe block's, when making it
 * per test would repeat a costly preparation): call it at the top of the file or block, not in
 * a test. The sandbox is made before the block's first test (as `setup` makes it) and closed
 * after its last. `call` can be taken at once; `sandbox` is there from the block's start.
 */
export function sharedSetup(options: SandboxOptions = {}, { frozenAt, internal }: TestSetup = {}) {
  let t: TestSandbox | undefined
  const made = () => {
    if (!t) throw new Error('sharedSetup: its sandbox is made when the tests start')
    return t
  }
  beforeAll(async () => {
    t = await testSandbox(options, internal)
    if (frozenAt !== undefined) t.sandbox.clock.freeze(frozenAt === true ? undefined : frozenAt)
  })
  afterAll(() => t?.sandbox.close())
  return {
    call: ((...args) => made().call(...args)) as Call,
    get sandbox(): Sandbox {
      return made().sandbox
    },
  } satisfies TestSandbox
}

/**
 * A fresh temporary directory (for data files), removed when the test ends: after the
 * sandboxes setup() made later in the test are closed, since they write their file on close.
 * Call it inside the test, or in a `beforeEach`.
 */
export function tempDirForTest(prefix = 'sandbox-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The engine of this run: the `postgres` project sets PARTNER_SANDBOX_TEST_ENGINE. */
export const testEngine =
  process.env.PARTNER_SANDBOX_TEST_ENGINE === 'postgres' ? 'postgres' : 'memory'

/** What a test sandbox adds to its options to run on this run's engine (a data file wins). */
export function engineOptions(options: SandboxOptions = {}): SandboxOptions {
  if (testEngine !== 'postgres' || options.data || options.database) return {}
  return { database: freshDatabaseUrl() }
}

/** The password of every fixture user (fixtures/default.json). */
export const FIXTURE_PASSWORD = 'Sandbox-Passw0rd!'

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** Full login: password → code from the sandbox inbox → the verify-otp body. Throws on any failure. */
export async function loginSession(
  call: Call,
  email: string,
  password: string = FIXTURE_PASSWORD,
  creds: Creds = acme,
): Promise<{ sessionToken: string; expiresAt: number; user: { id: string; email: string } }> {
  const login = await call('POST', '/api/v1/partner/auth/login', {
    creds,
    body: { email, password },
  })
  if (login.status !== 200) throw new Error(`login of ${email}: ${login.status} ${login.text}`)
  const inbox = await call(
    'GET',
    `/_sandbox/inbox?kind=login_code&email=${encodeURIComponent(email)}`,
    { creds: null },
  )
  const code = inbox.json?.data?.[0]?.code
  if (typeof code !== 'string') throw new Error(`no login code for ${email}: ${inbox.text}`)
  const verify = await call('POST', '/api/v1/partner/auth/verify-otp', {
    creds,
    body: { email, code },
  })
  if (verify.status !== 200)
    throw new Error(`verify-otp of ${email}: ${verify.status} ${verify.text}`)
  return verify.json
}

/** Full login; answers the session token. */
export async function loginAs(
  call: Call,
  email: string,
  password: string = FIXTURE_PASSWORD,
  creds: Creds = acme,
): Promise<string> {
  return (await loginSession(call, email, password, creds)).sessionToken
}

let registrations = 0

export interface NewUser {
  email: string
  phone_number: string
  first_name: string
  last_name: string
  password: string
  ssn: string
  date_of_birth: string
}

/** Registration fields of a fresh, unique adult user; override any of them. */
export function newUser(overrides: Partial<NewUser> = {}): NewUser {
  registrations++
  return {
    email: `user${registrations}.${Date.now()}@example.test`,
    phone_number: `+1415555${String(registrations % 10_000).padStart(4, '0')}`,
    first_name: 'Robin',
    last_name: 'Tester',
    password: 'Initial-Passw0rd!',
    ssn: '987-65-4321',
    date_of_birth: '1990-04-12',
    ...overrides,
  }
}

/** Registers a new user and logs them in; answers the registration, the user id and a token. */
export async function registerAndLogin(
  call: Call,
  overrides: Partial<NewUser> = {},
  creds: Creds = acme,
) {
  const user = newUser(overrides)
  const res = await call('POST', '/api/v1/partner/auth/register', { creds, body: user })
  if (res.status !== 201) throw new Error(`register of ${user.email}: ${res.status} ${res.text}`)
  const session = await loginSession(call, user.email, user.password, creds)
  const token = session.sessionToken
  return {
    user,
    userId: res.json.userId as string,
    token,
    expiresAt: session.expiresAt,
    bearer: bearer(token),
  }
}

/** How a test receiver answers one request: a status code, or never ('hang'). */
export type Reply = number | 'hang'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The body, byte for byte as it arrived. */
  body: Buffer
  /** Machine time of arrival (ms). */
  at: number
}

export interface Receiver {
  url: string
  requests: ReceivedRequest[]
  /** Answers the next requests with these, in order, then with `otherwise`. */
  script(...replies: Reply[]): void
  otherwise: Reply
  /** Resolves once `count` requests arrived; rejects after `timeoutMs` of real time. */
  waitFor(count: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

/** A real webhook receiver on 127.0.0.1 (port 0) that records requests and answers as told. */
export async function startReceiver(...replies: Reply[]): Promise<Receiver> {
  const queue = [...replies]
  const requests: ReceivedRequest[] = []
  /** What waitFor waits on: each is called as a request arrives. */
  const arrivals = new Set<() => void>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      })
      for (const arrived of arrivals) arrived()
      const reply = queue.length > 0 ? (queue.shift() as Reply) : receiver.otherwise
      if (reply === 'hang') return
      res.writeHead(reply, reply >= 300 && reply < 400 ? { location: 'http://127.0.0.1:9/' } : {})
      res.end(`status ${reply}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    otherwise: 200,
    script: (...next) => queue.splice(0, queue.length, ...next),
    waitFor(count, timeoutMs = 15_000) {
      if (requests.length >= count) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const arrived = () => {
          if (requests.length < count) return
          done()
          resolve()
        }
        const timer = setTimeout(() => {
          done()
          reject(new Error(`receiver got ${requests.length} requests, expected ${count}`))
        }, timeoutMs)
        const done = () => {
          clearTimeout(timer)
          arrivals.delete(arrived)
        }
        arrivals.add(arrived)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
  return receiver
}

/** A receiver (startReceiver) closed when the test ends. */
export async function receiverForTest(...replies: Reply[]): Promise<Receiver> {
  const receiver = await startReceiver(...replies)
  onTestFinished(() => receiver.close())
  return receiver
}

/** A 127.0.0.1 port with nothing listening (connections to it are refused). */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * The same client as `setup().call`, over a real socket: for a sandbox started with
 * `startSandbox()` (browser tests, where the page and the test must see one server).
 */
export function httpCall(baseUrl: string): Call {
  return client((path, init) => fetch(new URL(path, baseUrl), init))
}

/** The start body of a card onboarding (spec section 4), every field valid: an ordinary applicant. */
export function onboardingApplicant(
  user: Pick<NewUser, 'email' | 'phone_number'> & Partial<NewUser>,
  overrides: Record<string, string> = {},
) {
  return {
    first_name: user.first_name ?? 'Robin',
    last_name: user.last_name ?? 'Tester',
    email: user.email,
    phone_number: user.phone_number,
    country_code: 'US',
    date_of_birth: user.date_of_birth ?? '1990-04-12',
    address_line1: '1 Main Street',
    address_line2: '',
    address_city: 'Springfield',
    address_state: 'IL',
    address_zip: '62701',
    ssn: user.ssn ?? '123-45-6789',
    ...overrides,
  }
}

/**
 * A registered, logged-in user holding an active card: register → login → verify-otp →
 * onboarding → complete (pass). Answers what registerAndLogin does, plus the card id.
 */
export async function onboardedUser(
  call: Call,
  overrides: Partial<NewUser> = {},
  creds: Creds = acme,
) {
  const registered = await registerAndLogin(call, overrides, creds)
  const headers = registered.bearer
  const start = await call('POST', '/api/v1/partner/cards/onboarding', {
    creds,
    headers,
    body: onboardingApplicant(registered.user),
  })
  if (start.status !== 200) throw new Error(`onboarding start: ${start.status} ${start.text}`)
  const done = await walkAndComplete(call, start.json.data.onboardingId, {
    creds,
    headers,
    body: { result: 'pass', data: { from: 'test' }, agreement_accepted: true },
  })
  const card = done.json?.data?.card
  if (done.status !== 200 || card?.status !== 'active')
    throw new Error(`onboarding complete: ${done.status} ${done.text}`)
  return { ...registered, cardId: card.id as string }
}

/** The ends the control plane's headless walk can take the hosted onboarding flow to. */
export type FlowEnd = 'passed' | 'failed' | 'agreement_declined'

/**
 * The hosted onboarding flow walked headlessly to `end` (POST /_sandbox/onboardings/:id/walk),
 * so the partner's completion is taken: answers the flow's message (`result`,
 * `agreementAccepted`, `data`) and the walk's whole answer. Throws unless 200.
 */
export async function walkFlow(call: Call, onboardingId: string, end: FlowEnd = 'passed') {
  const res = await call('POST', `/_sandbox/onboardings/${onboardingId}/walk`, {
    creds: null,
    body: { end },
  })
  if (res.status !== 200) throw new Error(`walk to ${end}: ${res.status} ${res.text}`)
  return res.json.flow as { result: 'pass' | 'fail'; agreementAccepted: boolean; data: object }
}

/**
 * A completion as a partner's backend makes it once the flow ended: the flow walked
 * headlessly to `end`, then POST …/onboarding/:id/complete with `body`, or without one the
 * flow's own message (result, data, agreement_accepted). Answers the completion's response.
 */
export async function walkAndComplete(
  call: Call,
  onboardingId: string,
  opts: { headers: Record<string, string>; creds?: Creds; body?: unknown; end?: FlowEnd },
) {
  const flow = await walkFlow(call, onboardingId, opts.end)
  return call('POST', `/api/v1/partner/cards/onboarding/${onboardingId}/complete`, {
    creds: opts.creds ?? acme,
    headers: opts.headers,
    body: opts.body ?? {
      result: flow.result,
      data: flow.data,
      agreement_accepted: flow.agreementAccepted,
    },
  })
}

/** The accounts a hosted bank-connect page offers: its data-account / data-institution-id pairs. */
export function offeredBankAccounts(html: string) {
  return [...html.matchAll(/data-account="([^"]+)" data-institution-id="([^"]+)"/g)].map((m) => ({
    account_id: m[1] as string,
    institution_id: m[2] as string,
  }))
}

/**
 * Connects a bank account the way the hosted flow does: a connect token (Org + User), the
 * public page, then the public enrollment with the first account offered. Answers its id.
 */
export async function connectBank(
  call: Call,
  headers: Record<string, string>,
  creds: Creds = acme,
): Promise<string> {
  const token = await call('POST', '/api/v1/external-bank-account-connect/token', {
    creds,
    headers,
  })
  if (token.status !== 201) throw new Error(`connect token: ${token.status} ${token.text}`)
  const url = new URL(token.json.data.connect_url)
  const page = await call('GET', `${url.pathname}${url.search}`, { creds: null })
  const [account] = offeredBankAccounts(page.text)
  if (page.status !== 200 || !account) throw new Error(`connect page: ${page.status}`)
  const enrolled = await call('POST', '/api/v1/external-bank-account-connect/enrollment/public', {
    creds: null,
    body: { token: token.json.data.connect_token, ...account },
  })
  if (enrolled.status !== 201) throw new Error(`enrollment: ${enrolled.status} ${enrolled.text}`)
  return enrolled.json.data.id as string
}

/** A partner made through the control plane (POST /_sandbox/partners); throws unless 201. */
export async function createPartner(
  call: Call,
  body: { name: string; scenario?: string | null; webhook_url?: string } & Record<string, unknown>,
) {
  const res = await call('POST', '/_sandbox/partners', { creds: null, body })
  if (res.status !== 201) throw new Error(`create partner: ${res.status} ${res.text}`)
  return {
    id: res.json.partner.id as string,
    creds: { key: res.json.api_key, secret: res.json.api_secret } as Creds,
    scenario: res.json.scenario as string,
    webhookSecret: res.json.webhook_secret as string | undefined,
  }
}

/** Underwriting answers the hosted flow accepts. */
export const UNDERWRITING_ANSWERS = {
  employment_status: 'employed',
  annual_income: '50k_100k',
  source_of_funds: 'salary',
}

/**
 * A card onboarding walked the way a partner's app does it: start, the hosted flow's steps
 * until the flow ends (the sandbox decides where), then completion with the flow's result.
 * Answers the steps taken, the flow's result and the completion's body. Throws on a non-200.
 */
export async function hostedOnboarding(
  call: Call,
  headers: Record<string, string>,
  applicant: Record<string, unknown>,
  creds: Creds = acme,
  startHeaders: Record<string, string> = {},
) {
  const start = await call('POST', '/api/v1/partner/cards/onboarding', {
    creds,
    headers: { ...headers, ...startHeaders },
    body: applicant,
  })
  if (start.status !== 200) throw new Error(`onboarding start: ${start.status} ${start.text}`)
  const { onboardingId, accessToken } = start.json.data as {
    onboardingId: string
    accessToken: string
  }
  const steps: [string, unknown][] = [
    ['identity_verification', { confirmed: true }],
    ['underwriting', UNDERWRITING_ANSWERS],
    ['agreement', { accepted: true }],
  ]
  const taken: string[] = []
  // biome-ignore lint/suspicious/noExplicitAny: the flow's result is read field by field
  let flow: any
  for (const [step, body] of steps) {
    const res = await call('POST', `/embed/onboarding/${onboardingId}/steps/${step}`, {
      creds: null,
      headers: bearer(accessToken),
      body,
    })
    if (res.status !== 200) throw new Error(`step ${step}: ${res.status} ${res.text}`)
    taken.push(step)
    if (res.json.finished) {
      flow = res.json.result
      break
    }
  }
  if (!flow) throw new Error('the hosted flow did not finish')
  const done = await call('POST', `/api/v1/partner/cards/onboarding/${onboardingId}/complete`, {
    creds,
    headers,
    body: { result: flow.result, data: flow.data, agreement_accepted: flow.agreementAccepted },
  })
  if (done.status !== 200) throw new Error(`onboarding complete: ${done.status} ${done.text}`)
  return { onboardingId, steps: taken, flow, completion: done.json.data }
}

/** The request journal (GET /_sandbox/requests), newest first, with optional filters. */
export async function journalOf(call: Call, query: Record<string, string> = {}) {
  const res = await call('GET', `/_sandbox/requests?${new URLSearchParams(query)}`, {
    creds: null,
  })
  if (res.status !== 200) throw new Error(`journal: ${res.status} ${res.text}`)
  // biome-ignore lint/suspicious/noExplicitAny: journal entries are read field by field
  return res.json.data as any[]
}

/**
 * Everything a snapshot holds (GET /_sandbox/snapshot, secrets included), as one string: what
 * "changes nothing" compares before and after. The inbox, the journal, sinks and clocks are
 * not in a snapshot; a test that means them reads them through their own routes (inboxOf).
 */
export async function snapshotOf(call: Call): Promise<string> {
  const res = await call('GET', '/_sandbox/snapshot?include_secrets=true', { creds: null })
  if (res.status !== 200) throw new Error(`snapshot: ${res.status} ${res.text}`)
  return JSON.stringify(res.json.collections)
}

// biome-ignore lint/suspicious/noExplicitAny: a stored row is read field by field
type StoredRow = Record<string, any>

/** A collection's rows as a snapshot holds them (GET /_sandbox/snapshot, secrets included). */
export async function storedRows(call: Call, collection: string): Promise<StoredRow[]> {
  const res = await call('GET', '/_sandbox/snapshot?include_secrets=true', { creds: null })
  if (res.status !== 200) throw new Error(`snapshot: ${res.status} ${res.text}`)
  return Object.values(res.json.collections[collection] ?? {})
}

/** One stored row as a snapshot holds it (see storedRows). */
export async function storedRow(call: Call, collection: string, id: string) {
  return (await storedRows(call, collection)).find((row) => row.id === id)
}

/** The sandbox inbox (GET /_sandbox/inbox), newest first, as one string. */
export async function inboxOf(call: Call): Promise<string> {
  const res = await call('GET', '/_sandbox/inbox?limit=500', { creds: null })
  if (res.status !== 200) throw new Error(`inbox: ${res.status} ${res.text}`)
  return JSON.stringify(res.json.data)
}
