/**
 * A partner's test suite as TypeScript sees it with only `partner-sandbox` installed (plus
 * typescript and @types/node): test/package.test.ts type-checks this file, strict and with
 * `skipLibCheck: false`, in an empty folder outside the repository. Never run, only compiled.
 *
 * Each `@ts-expect-error` is a misuse the types must refuse. If a type the package publishes
 * fell back to `any` (an import its declarations cannot resolve), the misuse would compile,
 * the directive would be unused, and the check fails (with skipLibCheck off, so would the
 * unresolved import itself). `typed()` also refuses a value declared `any`.
 */
import {
  ConfigError,
  ControlPlaneError,
  type CreatedSandboxPartner,
  createControlClient,
  createSandbox,
  DEFAULT_PARTNER,
  type SandboxEventEnvelope,
  type SandboxScenarioDocument,
  startSandbox,
  WaitTimeoutError,
} from 'partner-sandbox'
import type { components, paths } from 'partner-sandbox/openapi'

/** Compiles for any real type; for `any` the parameter is `never` and the call is refused. */
const typed = <T>(value: T & (0 extends 1 & T ? never : unknown)): T => value
const is = <T>(value: T): T => value

export async function partnerSuite(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, logLevel: 'silent', seed: 7 })
  is<string>(typed(sandbox.url))
  is<number>(typed(sandbox.port))
  // @ts-expect-error the URL is a string
  is<number>(sandbox.url)
  // @ts-expect-error an unknown option is refused
  await startSandbox({ prot: 0 })
  // @ts-expect-error logLevel is one of the levels
  await startSandbox({ logLevel: 'loud' })
  is<number>(typed(sandbox.clock.now()))
  // @ts-expect-error the sandbox clock's now() is epoch milliseconds
  is<string>(sandbox.clock.now())
  is<{ apiKey: string; apiSecret: string } | undefined>(typed(sandbox.defaultCredentials()))

  // In process: app.request and fetch answer Responses.
  const inProcess = await createSandbox({ scenario: 'default', fsync: false })
  is<Response>(typed(await inProcess.app.request('/api/v1/health')))
  // @ts-expect-error app.request answers a Response
  is<string>(await inProcess.app.request('/api/v1/health'))
  is<Response>(typed(await inProcess.fetch(new Request('http://sandbox.test/api/v1/health'))))
  // @ts-expect-error fetch takes a Request, not options
  await inProcess.fetch({ url: '/api/v1/health' })
  // Always a promise: the `fetch` option of openapi-fetch (and of fetch-like APIs) takes it as is.
  const asFetch: (input: Request) => Promise<Response> = inProcess.fetch
  is<Promise<Response>>(typed(asFetch(new Request('http://sandbox.test/api/v1/health'))))
  is<Promise<Response>>(typed(inProcess.request('/api/v1/health')))
  is<string>(typed(await inProcess.control.health()).status)
  await inProcess.close()

  const control = createControlClient(sandbox.url, { adminToken: 'token' })
  // @ts-expect-error the option is adminToken
  createControlClient(sandbox.url, { token: 'token' })
  is<string>(typed(await control.health()).status)
  // @ts-expect-error health's uptime is a number
  is<string>((await control.health()).uptime_s)
  const all = typed(await control.partners.list())
  is<string>(all.data[0]?.id ?? '')
  // @ts-expect-error every control list is { data, has_more }
  is<unknown[]>(all.partners)

  const partner = await sandbox.control.createPartner({ name: 'worker 1' })
  // @ts-expect-error a partner's name is a string
  await control.createPartner({ name: 1 })
  is<string>(typed(partner.id))
  is<string>(typed(partner.partner.name))
  is<string>(typed(partner.apiSecret))
  const key: string = typed(partner.headers['X-Partner-Key'])
  // @ts-expect-error the headers are the two organization headers
  is<string>(partner.headers['X-Partner-Token'])
  // @ts-expect-error the key is a string
  is<number>(partner.apiKey)
  is<string>(key)

  const clock = typed(await partner.clock.advance('11m'))
  is<string>(clock.now)
  is<number>(clock.offset_ms)
  // @ts-expect-error now is an ISO string
  is<number>(clock.now)
  // @ts-expect-error advance takes a duration or { to }
  await partner.clock.advance({ by: '1m' })
  is<Date>(typed(await partner.clock.now()))
  await partner.clock.freeze()

  is<string>(typed(await partner.inbox.latestCode('jane@example.com')))
  await partner.inbox.latestCode('jane@example.com', { kind: 'password_reset_code' })
  // @ts-expect-error kind is login_code or password_reset_code
  await partner.inbox.latestCode('jane@example.com', { kind: 'sms_code' })

  const event = await partner.webhooks.waitFor('card.created', {
    timeout: 10_000,
    where: (e) => {
      // @ts-expect-error an event's type is a string
      is<number>(e.type)
      return e.data.object.user_id === 'u' && e.livemode === false
    },
  })
  is<SandboxEventEnvelope>(typed(event))
  is<string>(event.type)
  is<number>(event.created)
  is<'event'>(event.object)
  // @ts-expect-error created is unix seconds
  is<string>(event.created)
  // @ts-expect-error the option is timeout, in ms
  await partner.webhooks.waitFor('card.created', { timeoutMs: 10_000 })
  const { delivery } = await partner.webhooks.waitForDelivery('card.funded')
  is<'pending' | 'succeeded' | 'failed' | 'permanently_failed' | undefined>(delivery?.status)
  // @ts-expect-error attempts is the list of tries
  is<number | undefined>(delivery?.attempts)

  const requests = typed(await partner.requests.find({ method: 'POST', path: '/api/v1/*' }))
  for (const entry of requests) {
    is<number>(entry.status)
    is<number>(entry.duration_ms)
    is<string | null>(entry.partner_id)
    // @ts-expect-error status is a number
    is<string>(entry.status)
  }
  // @ts-expect-error method is an HTTP method
  await partner.requests.find({ method: 'FETCH' })
  is<number>(typed(await partner.requests.count({ status: 201 })))

  is<string | null>(typed(await partner.scenario.use('kyc-fail')).scenario)
  is<true>(typed(await partner.reset()).ok)
  const snapshot = typed(await partner.snapshot())
  await partner.restore(snapshot)
  // @ts-expect-error restore takes a snapshot document
  await partner.restore({})

  const created: CreatedSandboxPartner = {
    partner: partner.partner,
    api_key: partner.apiKey,
    api_secret: partner.apiSecret,
    scenario: 'default',
  }
  is<string>(control.partner(created).apiBase)

  // The sandbox-wide helpers: rules, scenarios, sinks, events.
  const rule = typed(
    await control.rules.add({ match: { path: '/api/v1/*' }, respond: { status: 503 }, once: true }),
  )
  is<number | null>(rule.times)
  // @ts-expect-error a decision is one of the scenario's: kyc takes its outcomes only
  await control.rules.add({ match: { path: '/api/v1/*' }, decide: { kyc: 'maybe' } })
  const scenario: SandboxScenarioDocument = { name: 'slow-kyc', otp: { code: '123456' } }
  is<string>(typed(await control.scenarios.load(scenario)).name)
  // @ts-expect-error a scenario document needs its name
  await control.scenarios.load({ otp: { code: '123456' } })
  await startSandbox({ scenario, port: '4010' })
  is<number>(typed(await control.sinks.configure('app', { fail_next: 2 })).fail_next)
  is<string[]>((await control.events.list({ type: 'card.*' })).data.map((e) => e.type))

  try {
    await control.reset()
  } catch (error) {
    if (error instanceof ControlPlaneError) is<number>(typed(error.status))
    if (error instanceof WaitTimeoutError) is<number>(typed(error.timeoutMs))
    if (error instanceof ConfigError) is<string[]>(error.problems.map((p) => p.option))
  }
  is<'pk_test_acme_sandbox_default_key'>(typed(DEFAULT_PARTNER.api_key))

  // The partner API's generated types (partner-sandbox/openapi), as openapi-fetch reads them.
  type Login = paths['/api/v1/partner/auth/login']['post']
  const login: Login['requestBody']['content']['application/json'] = {
    email: 'jane@example.com',
    password: 'Sandbox-Passw0rd!',
  }
  is<string>(typed(login.email))
  // @ts-expect-error not a path of the API
  is<unknown>({} as paths['/api/v1/partner/logins'])
  // @ts-expect-error the login body has no username
  is<components['schemas']['Login']>({ username: 'jane', password: 'x' })

  await sandbox.close()
}
