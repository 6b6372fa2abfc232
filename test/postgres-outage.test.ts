import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type ServingCli, serveCli, stopCliProcesses } from './cli-process.js'
import {
  acme,
  bearer,
  newUser,
  orgHeaders,
  type Receiver,
  registerAndLogin,
  startReceiver,
} from './helpers.js'
import { describePostgres } from './postgres.js'
import { type PostgresServer, startPostgres } from './postgres-server.js'

/**
 * What an operator meets on an ordinary day: three replicas on one database under write load,
 * and PostgreSQL restarted, every connection terminated, a replica killed. No replica exits,
 * requests meanwhile get a clear 503 with Retry-After, the replicas serve again once the
 * database is back, no acknowledged write is lost, and every event reaches its endpoint.
 */

type Replica = ServingCli

let server: PostgresServer | undefined
let database = ''
const receivers: Receiver[] = []

beforeAll(async () => {
  server = await startPostgres()
  database = `${server?.url}?schema=outage`
})

afterAll(async () => {
  await stopCliProcesses()
  for (const receiver of receivers) await receiver.close()
  server?.stop()
})

function startReplica(): Promise<Replica> {
  return serveCli(['--port', '0', '--log-level', 'warn'], { SANDBOX_DATABASE_URL: database })
}

/** Statements of the test's own on the server (not through a replica). */
async function sql<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: server?.url })
  client.on('error', () => {})
  await client.connect()
  try {
    return (await client.query<T>(text)).rows
  } finally {
    await client.end()
  }
}

/** Waits until every replica's health check answers 200 again; answers how many tries it took. */
async function healthy(replicas: Replica[]): Promise<void> {
  const deadline = Date.now() + 60_000
  for (const replica of replicas) {
    for (;;) {
      const health = await replica
        .call('GET', '/_sandbox/health', { creds: null })
        .catch(() => null)
      if (health?.status === 200) break
      if (Date.now() > deadline) throw new Error(`${replica.url} never came back: ${health?.text}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

describePostgres('replicas through a PostgreSQL restart, a terminate-all and a kill', () => {
  it('no replica exits, nothing acknowledged is lost, every event arrives', {
    timeout: 240_000,
  }, async () => {
    const replicas: Replica[] = []
    for (let i = 0; i < 3; i++) replicas.push(await startReplica())
    const hooks = await startReceiver()
    receivers.push(hooks)
    const [a] = replicas as [Replica]
    const endpoint = await a.call('POST', '/api/v1/partner/webhooks', {
      body: { url: hooks.url, events: ['user.created'] },
    })
    expect(endpoint.status, endpoint.text).toBe(201)

    // Eight writers register users round-robin over the replicas until told to stop.
    const acknowledged: string[] = []
    const answers = new Map<number, number>()
    let stop = false
    let sent = 0
    const writer = async () => {
      while (!stop) {
        const through = replicas[sent++ % replicas.length] as Replica
        const user = newUser()
        const res = await through
          .call('POST', '/api/v1/partner/auth/register', { body: user })
          .catch(() => null)
        if (res) answers.set(res.status, (answers.get(res.status) ?? 0) + 1)
        if (res?.status === 201) acknowledged.push(user.email.toLowerCase())
        else if (res?.status === 503) {
          // The outage says so, in the envelope, with when to come back.
          expect(res.json?.error?.code).toBe('service_unavailable')
          expect(res.headers.get('retry-after')).toBe('2')
        } else if (res) expect.fail(`unexpected ${res.status}: ${res.text}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    const writers = Array.from({ length: 8 }, writer)
    const progress = async (n: number) => {
      const target = acknowledged.length + n
      while (acknowledged.length < target) await new Promise((resolve) => setTimeout(resolve, 20))
    }

    await progress(20)
    server?.restart()
    await progress(20)
    await sql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'partner-sandbox'",
    )
    await progress(20)
    for (const replica of replicas) expect(replica.child.exitCode, replica.output.stderr).toBeNull()
    const doomed = replicas[2] as Replica
    doomed.child.kill('SIGKILL')
    expect(await doomed.exited).toEqual({ code: null, signal: 'SIGKILL' })
    replicas[2] = await startReplica()
    await progress(20)
    stop = true
    await Promise.all(writers)

    // No replica exited but the one killed; each serves again.
    for (const replica of replicas) expect(replica.child.exitCode, replica.output.stderr).toBeNull()
    await healthy(replicas)
    expect(answers.get(201)).toBe(acknowledged.length)

    // Every acknowledged user is there.
    const stored = new Set(
      (await sql<{ email: string }>('SELECT lower(email) AS email FROM outage.users')).map(
        (row) => row.email,
      ),
    )
    for (const email of acknowledged) expect(stored).toContain(email)

    // Retries fall due on an advanced clock; then nothing is pending and every acknowledged
    // user's event reached the endpoint at least once.
    const moved = await a.call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '10m' },
    })
    expect(moved.status, moved.text).toBe(200)
    const deadline = Date.now() + 120_000
    for (;;) {
      const [pending] = await sql<{ n: string }>(
        'SELECT count(*) AS n FROM outage.webhook_deliveries WHERE next_attempt_at IS NOT NULL',
      )
      if (Number(pending?.n) === 0) break
      if (Date.now() > deadline) throw new Error(`${pending?.n} deliveries still pending`)
      await a.call('POST', '/_sandbox/webhooks/flush', { creds: null })
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    const received = new Set(
      hooks.requests.map((r) => JSON.parse(r.body.toString()).data.object.email.toLowerCase()),
    )
    for (const email of acknowledged) expect(received).toContain(email)

    // A profile picture uploaded through one replica (the restarted one) is served by another.
    const { token } = await registerAndLogin((replicas[2] as Replica).call)
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    )
    const form = new FormData()
    form.append('profile_picture', new File([png], 'me.png', { type: 'image/png' }))
    const uploaded = await fetch(
      new URL('/api/v1/partner/users/me/profile-picture', (replicas[2] as Replica).url),
      { method: 'PATCH', body: form, headers: { ...orgHeaders(acme), ...bearer(token) } },
    )
    const body = (await uploaded.json()) as { profile_picture_url: string }
    expect(uploaded.status, JSON.stringify(body)).toBe(200)
    const served = await fetch(new URL(new URL(body.profile_picture_url).pathname, a.url))
    expect(served.status).toBe(200)
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true)

    // An attempt answered 2xx and recorded is the delivery's last: nothing was sent after it.
    const deliveries = await sql<{ id: string; attempts: { status_code: number | null }[] }>(
      'SELECT id, attempts FROM outage.webhook_deliveries',
    )
    for (const delivery of deliveries) {
      const firstOk = delivery.attempts.findIndex(
        (at) => at.status_code !== null && at.status_code < 300,
      )
      expect(firstOk, delivery.id).toBe(delivery.attempts.length - 1)
      const sentAfter = hooks.requests.filter(
        (r) =>
          r.headers['x-sandbox-delivery-id'] === delivery.id &&
          Number(r.headers['x-sandbox-attempt']) > firstOk + 1,
      )
      expect(sentAfter, delivery.id).toEqual([])
    }
  })
})
