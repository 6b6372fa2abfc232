import { afterEach, expect, it } from 'vitest'
import { type ServingCli, serveCli, stopCliProcesses } from './cli-process.js'
import { onboardedUser, type Receiver, startReceiver } from './helpers.js'
import { describePostgres, freshDatabaseUrl } from './postgres.js'

/**
 * Three sandbox processes on one database, as behind a load balancer, and one of them killed
 * with SIGKILL under write load: every write a replica acknowledged is there through the
 * others, and the webhook deliveries it had under way are made by the others, once each.
 */

type Replica = ServingCli

const closing: (() => Promise<unknown>)[] = []
afterEach(async () => {
  await stopCliProcesses()
  for (const close of closing.splice(0)) await close()
})

function startReplica(database: string): Promise<Replica> {
  return serveCli(['--port', '0', '--log-level', 'warn'], { SANDBOX_DATABASE_URL: database })
}

describePostgres('a cluster of three sandbox processes on one database', () => {
  it('loses no acknowledged write and no delivery when one replica is killed', {
    timeout: 120_000,
  }, async () => {
    const database = freshDatabaseUrl()
    const replicas: Replica[] = []
    for (let i = 0; i < 3; i++) replicas.push(await startReplica(database))
    const [doomed, b, c] = replicas as [Replica, Replica, Replica]
    const hooks: Receiver = await startReceiver()
    closing.push(() => hooks.close())
    // First attempts fail: every delivery is still to retry when its replica dies. The clock
    // stands still, so the retries wait for the advance below, not for real time.
    hooks.otherwise = 503
    const frozen = await b.call('POST', '/_sandbox/clock/freeze', { creds: null })
    expect(frozen.status, frozen.text).toBe(200)
    const endpoint = await b.call('POST', '/api/v1/partner/webhooks', {
      body: { url: hooks.url, events: ['card.funded'] },
    })
    expect(endpoint.status, endpoint.text).toBe(201)
    // The doomed replica makes the events (so their deliveries are its own work).
    const user = await onboardedUser(doomed.call)
    for (let i = 0; i < 5; i++) {
      const funded = await doomed.call('POST', '/api/v1/partner/cards/simulate-fund', {
        headers: user.bearer,
        body: { amount: 1 },
      })
      expect(funded.status, funded.text).toBe(200)
    }
    await hooks.waitFor(5, 30_000)

    // Write load through all three; the kill lands with requests in flight.
    const acknowledged: string[] = []
    let killed: Promise<unknown> | undefined
    const writes = Array.from({ length: 45 }, (_, i) =>
      (replicas[i % 3] as Replica)
        .call('POST', '/_sandbox/partners', { creds: null, body: { name: `Load ${i}` } })
        .then((res) => {
          if (res.status !== 201) return
          acknowledged.push(res.json.partner.id)
          if (acknowledged.length === 12) {
            doomed.child.kill('SIGKILL')
            killed = doomed.exited
          }
        })
        .catch(() => undefined),
    )
    await Promise.all(writes)
    expect(await killed).toEqual({ code: null, signal: 'SIGKILL' })
    expect(acknowledged.length).toBeGreaterThanOrEqual(12)

    for (const survivor of [b, c]) {
      const listed = await survivor.call('GET', '/_sandbox/partners', { creds: null })
      const ids = (listed.json.data as { id: string }[]).map((p) => p.id)
      for (const id of acknowledged) expect(ids).toContain(id)
    }

    // The retries (5 s later on the default schedule) are made by the survivors, once each.
    hooks.otherwise = 200
    expect(hooks.requests).toHaveLength(5)
    const moved = await c.call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '10s' },
    })
    expect(moved.status, moved.text).toBe(200)
    await hooks.waitFor(10, 60_000)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const attempts = hooks.requests.map(
      (r) => `${r.headers['x-sandbox-delivery-id']}#${r.headers['x-sandbox-attempt']}`,
    )
    expect(new Set(attempts).size).toBe(attempts.length)
    const delivered = new Set(
      hooks.requests
        .filter((r) => r.headers['x-sandbox-attempt'] === '2')
        .map((r) => r.headers['x-sandbox-delivery-id']),
    )
    expect(delivered.size).toBe(5)
    // The delivery log, read through a survivor, says each succeeded on its second attempt.
    const log = await c.call(
      'GET',
      `/api/v1/partner/webhooks/${endpoint.json.webhook.id}/deliveries?limit=20`,
    )
    expect(log.status, log.text).toBe(200)
    const rows = log.json.data as { status: string; attempts: unknown[] }[]
    expect(rows.map((d) => `${d.status}/${d.attempts.length}`)).toEqual(
      Array(5).fill('succeeded/2'),
    )
  })
})
