import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type SoakWindow, sampleWindows } from './window-sampler.js'

export type { SoakWindow }

/**
 * The soak's workload against a running sandbox on 127.0.0.1: each worker registers and
 * onboards its own `usersPerWorker` users, then loops login(s) -> inbox -> verify-otp -> fund ->
 * `purchases` purchases -> status -> transactions -> usage/deliveries -> logout over them, so
 * every round adds a code, a session and transactions to one of a fixed set of users. Every
 * event is delivered to a webhook receiver on 127.0.0.1. With `clockStep`, a pacer waits for
 * the rounds in progress to end every few seconds and moves the sandbox clock, so the
 * retention windows (a day, 30 days) pass within the run as over weeks of real use, and no
 * login straddles a jump. It counts requests and samples the sandbox's CPU time, its RSS and
 * (with `dataFile`) its stored rows per window.
 */

export interface SoakOptions {
  base: string
  /** The sandbox's process id, to read its RSS from /proc. */
  pid: number
  /** How long the load runs (with `until`, at least). */
  seconds: number
  /** After `seconds`, the load goes on window by window until this answers true... */
  until?: (windows: SoakWindow[]) => boolean
  /** ...or until this many seconds have passed. */
  maxSeconds?: number
  windowSeconds: number
  workers: number
  /** Users each worker creates at its start and then cycles through (default 3). */
  usersPerWorker?: number
  /** Logins per round, each a new code replacing the last (default 1; the last is verified). */
  loginsPerRound?: number
  /** Purchases per round after the funding (default 0). */
  purchases?: number
  /** `limit` of each round's transactions read (default 10). */
  listLimit?: number
  /** The sandbox's data file: each window then counts the stored rows (read here). */
  dataFile?: string
  /**
   * A full collection in the sandbox, run at each window's end before its RSS is read. Its
   * time is in no window: the window's requests and CPU are read before it, and the next
   * window starts after it.
   */
  collectGarbage?: () => Promise<void>
  /** Sandbox time added every `clockEverySeconds` (a duration the clock route takes). */
  clockStep?: string
  clockEverySeconds?: number
}

export interface SoakReport {
  windows: SoakWindow[]
  requests: number
  serverErrors: string[]
  unexpected: string[]
  webhooksReceived: number
}

const PASSWORD = 'Soak-Passw0rd!'

/** A webhook endpoint on 127.0.0.1 that answers 200 and counts what it gets. */
async function startReceiver(): Promise<{ server: Server; url: string; count: () => number }> {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received++
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { server, url: `http://127.0.0.1:${port}/hooks`, count: () => received }
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const receiver = await startReceiver()
  const report: SoakReport = {
    windows: [],
    requests: 0,
    serverErrors: [],
    unexpected: [],
    webhooksReceived: 0,
  }
  let inWindow = 0
  let logins = 0
  const call = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    expect = [200, 201],
  ) => {
    const res = await fetch(`${options.base}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    report.requests++
    inWindow++
    const line = `${method} ${path} -> ${res.status}: ${text.slice(0, 200)}`
    if (res.status >= 500) report.serverErrors.push(line)
    else if (!expect.includes(res.status) && report.unexpected.length < 20)
      report.unexpected.push(line)
    return text ? JSON.parse(text) : undefined
  }

  const created = await call('POST', '/_sandbox/partners', {}, { name: 'Soak partner' })
  const partnerHeaders = {
    'x-partner-key': created.api_key,
    'x-partner-secret': created.api_secret,
  }
  const endpoint = await call('POST', '/api/v1/partner/webhooks', partnerHeaders, {
    url: receiver.url,
    events: [],
  })
  if (!endpoint?.webhook) throw new Error(`cannot set up the soak: ${report.unexpected.join('; ')}`)
  const webhookId = endpoint.webhook.id as string

  let serial = 0
  const newUser = async () => {
    const email = `soak${serial++}.${process.pid}@example.com`
    await call('POST', '/api/v1/partner/auth/register', partnerHeaders, {
      first_name: 'Soak',
      last_name: 'Tester',
      email,
      phone_number: '+14155550100',
      date_of_birth: '1985-06-15',
      password: PASSWORD,
      ssn: '123-45-6789',
    })
    return email
  }
  const login = async (email: string) => {
    logins++
    await call('POST', '/api/v1/partner/auth/login', partnerHeaders, { email, password: PASSWORD })
    const inbox = await call(
      'GET',
      `/_sandbox/inbox?email=${encodeURIComponent(email)}&limit=1`,
      {},
    )
    const verified = await call('POST', '/api/v1/partner/auth/verify-otp', partnerHeaders, {
      email,
      code: inbox.data[0].code,
    })
    return { ...partnerHeaders, authorization: `Bearer ${verified.sessionToken}` }
  }
  const onboard = async (email: string, bearer: Record<string, string>) => {
    const start = await call('POST', '/api/v1/partner/cards/onboarding', bearer, {
      first_name: 'Soak',
      last_name: 'Tester',
      email,
      phone_number: '+14155550100',
      date_of_birth: '1985-06-15',
      country_code: 'US',
      address_line1: '1 Market St',
      address_city: 'San Francisco',
      address_state: 'CA',
      address_zip: '94105',
      ssn: '123-45-6789',
    })
    // The hosted flow, walked headlessly: the completion is taken only once it ended.
    await call('POST', `/_sandbox/onboardings/${start.data.onboardingId}/walk`, {}, {})
    await call(
      'POST',
      `/api/v1/partner/cards/onboarding/${start.data.onboardingId}/complete`,
      bearer,
      { result: 'pass', data: { source: 'soak' }, agreement_accepted: true },
    )
  }
  const round = async (email: string, n: number) => {
    for (let i = 1; i < (options.loginsPerRound ?? 1); i++, logins++)
      await call('POST', '/api/v1/partner/auth/login', partnerHeaders, {
        email,
        password: PASSWORD,
      })
    const bearer = await login(email)
    await call('POST', '/api/v1/partner/cards/simulate-fund', bearer, {
      amount: 1.25 + (options.purchases ?? 0),
    })
    for (let i = 0; i < (options.purchases ?? 0); i++) {
      await call('POST', '/api/v1/partner/cards/simulate-purchase', bearer, {
        amount: 1,
        merchant: { name: `Soak shop ${i}` },
      })
    }
    await call('GET', '/api/v1/partner/cards/status', bearer)
    await call('GET', `/api/v1/partner/cards/transactions?limit=${options.listLimit ?? 10}`, bearer)
    if (n % 4 === 0) await call('GET', '/api/v1/partner/usage', partnerHeaders)
    if (n % 4 === 2)
      await call('GET', `/api/v1/partner/webhooks/${webhookId}/deliveries?limit=20`, partnerHeaders)
    await call('POST', '/api/v1/partner/auth/logout', bearer)
  }

  // Rounds, and each user's setup, run between clock jumps, never across one (a jump would
  // expire their code or session; on a busy machine a setup can outlast the first interval).
  let gate: Promise<void> | undefined
  let active = 0
  let idle: (() => void) | undefined
  let ended = false
  const between = async <T>(work: () => Promise<T>): Promise<T> => {
    while (gate) await gate
    active++
    try {
      return await work()
    } finally {
      active--
      if (active === 0) idle?.()
    }
  }
  const worker = async () => {
    const users: string[] = []
    for (let i = 0; i < (options.usersPerWorker ?? 3); i++) {
      users.push(
        await between(async () => {
          const email = await newUser()
          await onboard(email, await login(email))
          return email
        }),
      )
    }
    for (let n = 0; !ended; n++) await between(() => round(users[n % users.length] as string, n))
  }
  const jump = async () => {
    let open = () => {}
    gate = new Promise<void>((resolve) => {
      open = resolve
    })
    if (active > 0) await new Promise<void>((resolve) => (idle = resolve))
    idle = undefined
    try {
      await call('POST', '/_sandbox/clock/advance', {}, { by: options.clockStep })
    } finally {
      gate = undefined
      open()
    }
  }

  let jumping: Promise<void> | undefined
  const started = Date.now()
  let stopped = false
  const sampling = sampleWindows(
    options,
    report.windows,
    started,
    () => {
      const requests = inWindow
      inWindow = 0
      return requests
    },
    () => logins,
    () => stopped,
  ).finally(() => {
    ended = true
  })
  sampling.catch(() => {}) // awaited below, unless a worker failed first
  const pacer = options.clockStep
    ? setInterval(
        () => {
          if (!ended) jumping = jump()
        },
        (options.clockEverySeconds ?? 5) * 1000,
      )
    : undefined
  try {
    await Promise.all(Array.from({ length: options.workers }, worker))
    await sampling
  } finally {
    stopped = true
    clearInterval(pacer)
    await jumping
    report.webhooksReceived = receiver.count()
    receiver.server.close()
    receiver.server.closeAllConnections()
  }
  return report
}
