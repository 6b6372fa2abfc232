import { afterEach, expect, it } from 'vitest'
import { HISTORY_CAP_PER_PARTNER } from '../src/domain/retention.js'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { fillHistory } from './full-history.js'
import {
  acme,
  bearer,
  type Call,
  createPartner,
  hostedOnboarding,
  httpCall,
  onboardedUser,
  onboardingApplicant,
  orgHeaders,
  type Receiver,
  registerAndLogin,
  startReceiver,
} from './helpers.js'
import { describePostgres, freshDatabaseUrl } from './postgres.js'

// Three sandboxes on one database behave as one sandbox to a client that spreads its requests
// over them (as a load balancer would): one state, one budget per partner, each webhook
// attempt made once, one clock, and a change through one seen through the others.

const closing: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close()
})

async function replicas(n = 3, options: Parameters<typeof startSandbox>[0] = {}) {
  const database = freshDatabaseUrl()
  const started: RunningSandbox[] = []
  // One at a time: the first creates and seeds the schema (the others would wait on its lock).
  for (let i = 0; i < n; i++) {
    const sandbox = await startSandbox({ port: 0, logLevel: 'silent', database, ...options })
    closing.push(() => sandbox.close())
    started.push(sandbox)
  }
  const calls = started.map((s) => httpCall(s.url))
  let next = 0
  /** Each request through the next replica in turn. */
  const call: Call = (method, path, opts) => {
    const through = calls[next++ % calls.length] as Call
    return through(method, path, opts)
  }
  return { started, calls, call, database }
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver()
  closing.push(() => r.close())
  return r
}

describePostgres('replicas on one PostgreSQL database', () => {
  it('run the happy path round-robin: every step finds what another replica made', async () => {
    const { call } = await replicas()
    const user = await onboardedUser(call)
    const funded = await call('POST', '/api/v1/partner/cards/simulate-fund', {
      headers: user.bearer,
      body: { amount: 25 },
    })
    expect(funded.status, funded.text).toBe(200)
    for (let i = 0; i < 3; i++) {
      const card = await call('GET', '/api/v1/partner/cards/status', { headers: user.bearer })
      expect(card.status, card.text).toBe(200)
      expect(card.json.data.balances).toMatchObject({ available: 25, ledger: 25 })
    }
  })

  it('share each partner’s rate limit: the 429s start at the limit in total', async () => {
    const { call } = await replicas(3, { rateLimit: 30 })
    // Frozen 10 s into a minute (through one replica, for all): the 36 requests share one window
    // however long they take, rather than a minute's turn resetting the count midway.
    const frozen = await call('POST', '/_sandbox/clock/freeze', {
      creds: null,
      body: { at: '2026-03-01T10:00:10Z' },
    })
    expect(frozen.status, frozen.text).toBe(200)
    const statuses: number[] = []
    for (let i = 0; i < 36; i++) statuses.push((await call('GET', '/api/v1/partner/me')).status)
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true)
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true)
  })

  it('make 100 concurrent fundings through different replicas exact', async () => {
    const { call } = await replicas()
    const user = await onboardedUser(call)
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        call('POST', '/api/v1/partner/cards/simulate-fund', {
          headers: user.bearer,
          body: { amount: 0.01 },
        }),
      ),
    )
    expect(results.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([])
    const balances = await Promise.all(
      [0, 1, 2].map(() => call('GET', '/api/v1/partner/cards/status', { headers: user.bearer })),
    )
    for (const b of balances)
      expect(b.json.data.balances).toMatchObject({ available: 1, ledger: 1 })
  })

  it('after a key rotation through one, the old key is refused through the others', async () => {
    const { calls } = await replicas()
    const [a, b, c] = calls as [Call, Call, Call]
    // Each replica has checked (and may cache) the current key.
    for (const through of calls)
      expect((await through('GET', '/api/v1/partner/me')).status).toBe(200)
    const rotated = await a('POST', '/api/v1/partner/me/rotate-api-key')
    expect(rotated.status, rotated.text).toBe(200)
    const fresh = { key: rotated.json.api_key, secret: rotated.json.api_secret }
    expect((await b('GET', '/api/v1/partner/me')).status).toBe(401)
    expect((await c('GET', '/api/v1/partner/me', { creds: acme })).status).toBe(401)
    expect((await c('GET', '/api/v1/partner/me', { creds: fresh })).status).toBe(200)
  })

  it('deliver each webhook once, whichever replica made the event', async () => {
    const { call } = await replicas()
    const hooks = await receiver()
    const endpoint = await call('POST', '/api/v1/partner/webhooks', {
      body: { url: hooks.url, events: ['card.funded'] },
    })
    expect(endpoint.status, endpoint.text).toBe(201)
    const user = await onboardedUser(call)
    for (let i = 0; i < 6; i++) {
      const funded = await call('POST', '/api/v1/partner/cards/simulate-fund', {
        headers: user.bearer,
        body: { amount: 1 },
      })
      expect(funded.status, funded.text).toBe(200)
    }
    await hooks.waitFor(6)
    // Time for a second delivery of any of them to arrive, were one made.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const ids = hooks.requests.map((r) => JSON.parse(r.body.toString()).id as string)
    expect(ids).toHaveLength(6)
    expect(new Set(ids).size).toBe(6)
  })

  it('share one clock: an advance through one replica is the time of all', async () => {
    const { calls } = await replicas()
    const moved = await (calls[0] as Call)('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '3d' },
    })
    expect(moved.status, moved.text).toBe(200)
    const times = await Promise.all(
      calls.map(async (through) => (await through('GET', '/_sandbox/clock', { creds: null })).json),
    )
    for (const time of times)
      expect(Math.abs(Date.parse(time.now) - Date.parse(moved.json.now))).toBeLessThan(60_000)
  })

  it('share the sandbox-wide scenario: a switch through one is the scenario of all', async () => {
    const { calls, database } = await replicas()
    const [a, b, c] = calls as [Call, Call, Call]
    const put = await a('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'kyc-fail' } })
    expect(put.status, put.text).toBe(200)
    for (const through of calls) {
      expect((await through('GET', '/_sandbox/scenarios', { creds: null })).json.default).toBe(
        'kyc-fail',
      )
      expect((await through('GET', '/_sandbox/health', { creds: null })).json.scenario).toBe(
        'kyc-fail',
      )
    }
    // A partner without its own scenario follows it through another replica.
    const u = await registerAndLogin(b)
    const failed = await hostedOnboarding(c, u.bearer, {
      ...onboardingApplicant(u.user),
      ssn: '123456789',
    })
    expect(failed.completion.status).toBe('failed')
    // A reset keeps it, for all of them, and a replica started later with another follows it.
    expect((await b('POST', '/_sandbox/reset', { creds: null })).status).toBe(200)
    const later = await startSandbox({
      port: 0,
      logLevel: 'silent',
      database,
      scenario: 'happy-path',
    })
    closing.push(() => later.close())
    for (const through of [...calls, httpCall(later.url)])
      expect((await through('GET', '/_sandbox/scenarios', { creds: null })).json.default).toBe(
        'kyc-fail',
      )
  })

  it('forget a loaded scenario deleted through another replica', async () => {
    const { calls } = await replicas(2)
    const [a, b] = calls as [Call, Call]
    const doc = { name: 'short-lived', description: 'Loaded, used, deleted.' }
    const loaded = await a('POST', '/_sandbox/scenarios', { creds: null, body: doc })
    expect(loaded.status, loaded.text).toBe(201)
    const listed = async (through: Call) =>
      (await through('GET', '/_sandbox/scenarios', { creds: null })).json.data.map(
        (x: { name: string }) => x.name,
      )
    expect(await listed(b)).toContain('short-lived')
    expect((await b('DELETE', '/_sandbox/scenarios/short-lived', { creds: null })).status).toBe(200)
    expect(await listed(a)).not.toContain('short-lived')
    const use = await a('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'short-lived' } })
    expect(use.status, use.text).toBe(400)
  })

  it('wake a long-poll wait on one replica when the event is made through another', async () => {
    const { started, calls } = await replicas()
    const [a, b] = calls as [Call, Call]
    const partner = await createPartner(a, { name: 'Waiter' })
    const waiting = a(
      'GET',
      `/_sandbox/partners/${partner.id}/events/wait?type=card.funded&timeout=20s`,
      {
        creds: null,
      },
    )
    // The wait is registered on replica A before the event is made through B.
    await expect.poll(() => (started[0] as RunningSandbox).services.webhooks.waits.size).toBe(1)
    const user = await onboardedUser(b, {}, partner.creds)
    const funded = await b('POST', '/api/v1/partner/cards/simulate-fund', {
      creds: partner.creds,
      headers: user.bearer,
      body: { amount: 7 },
    })
    expect(funded.status, funded.text).toBe(200)
    const res = await waiting
    expect(res.json).toMatchObject({ status: 'matched', event: { type: 'card.funded' } })
    expect(res.json.event.data.object.amount).toBe(7)
  })

  it("reset one partner through one replica: its data is gone through all, others' stays", async () => {
    const { calls, call } = await replicas()
    const other = await createPartner(call, { name: 'Other Co' })
    const mine = await onboardedUser(call, {}, other.creds)
    const theirs = await onboardedUser(call)
    const reset = await (calls[1] as Call)('POST', `/_sandbox/partners/${other.id}/reset`, {
      creds: null,
    })
    expect(reset.status, reset.text).toBe(200)
    for (const through of calls) {
      const gone = await through('GET', '/api/v1/partner/users/me', {
        creds: other.creds,
        headers: mine.bearer,
      })
      expect(gone.status).toBe(401)
      const kept = await through('GET', '/api/v1/partner/users/me', { headers: theirs.bearer })
      expect(kept.status).toBe(200)
    }
  })

  it("hold a partner's caps when its history was written through another replica", async () => {
    const [a, b] = (await replicas(2)).started as [RunningSandbox, RunningSandbox]
    const through = [httpCall(a.url), httpCall(b.url)]
    for (const s of [a, b]) s.clock.freeze()
    const r = await receiver()
    const partner = await createPartner(through[0] as Call, { name: 'Busy', webhook_url: r.url })
    const emit = async (call: Call, n: number) => {
      const res = await call('POST', '/_sandbox/events', {
        creds: null,
        body: { partner_id: partner.id, type: 'webhook.test', object: { object: 'test', n } },
      })
      expect(res.status, res.text).toBe(201)
      return res.json.event.id as string
    }
    // Replica A counts the partner far below its caps, and trusts that while it hears little.
    await emit(through[0] as Call, 0)
    await a.services.retention.settled()
    // B writes a full history. A request through A first hears every commit made before it
    // (catchUp), B's included: A's next check counts again, and holds the caps.
    await fillHistory(b, partner.id)
    const newest = await emit(through[0] as Call, 1)
    await a.services.retention.settled()
    const { state } = a.services
    expect(await state.count('events_by_partner', partner.id)).toBe(HISTORY_CAP_PER_PARTNER)
    expect(await state.get('events', newest)).toBeDefined()
  }, 120_000)

  it('serve a profile picture uploaded through another replica, byte for byte', async () => {
    const { started, calls } = await replicas(2)
    const [a, b] = started as [RunningSandbox, RunningSandbox]
    const { token } = await registerAndLogin(calls[0] as Call)
    // A real 1×1 PNG, then up to 200 KiB, as a camera's picture would be.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    )
    const picture = Buffer.concat([png, Buffer.alloc(200 * 1024, 7)])
    const form = new FormData()
    form.append('profile_picture', new File([picture], 'me.png', { type: 'image/png' }))
    const uploaded = await fetch(new URL('/api/v1/partner/users/me/profile-picture', a.url), {
      method: 'PATCH',
      body: form,
      headers: { ...orgHeaders(acme), ...bearer(token) },
    })
    const body = (await uploaded.json()) as { profile_picture_url: string }
    expect(uploaded.status, JSON.stringify(body)).toBe(200)
    const path = new URL(body.profile_picture_url).pathname

    // Through the other replica, which never saw the upload: the same bytes and headers.
    const served = await fetch(new URL(path, b.url))
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(served.headers.get('content-length')).toBe(String(picture.length))
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(served.headers.get('x-content-type-options')).toBe('nosniff')
    expect(Buffer.from(await served.arrayBuffer()).equals(picture)).toBe(true)
    // And the user's profile through it points at the picture.
    const me = await (calls[1] as Call)('GET', '/api/v1/partner/users/me', {
      headers: bearer(token),
    })
    expect(new URL(me.json.profile_picture_url).pathname).toBe(path)
  })
})
