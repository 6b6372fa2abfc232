import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { tenantCollections } from '../src/store/tenants.js'
import { acme, bearer, onboardedUser, setup } from './helpers.js'
import { describePostgres } from './postgres.js'
import { type PostgresServer, startPostgres } from './postgres-server.js'

// Issue 21 item 7: a partner's API requests filter by the tenant key, so a table distributed by
// partner is read on that partner's node alone. A server of this test's own counts every
// statement the sandbox sends it (pg_stat_statements) while a partner goes through the whole
// flow, and each one that reads or writes a tenant table must name the partner.

/**
 * What reads tenant tables unscoped by design: not a partner's request. (pg_stat_statements
 * shows constants as parameters: the sweeps' key 'waiting' and the inbox's 'all' are `$2`.)
 */
const notAPartnersRequest = [
  // The credentials check: it finds the partner.
  /^SELECT .* FROM partners WHERE \(api_key\) = \$\d+ /,
  // The control plane's inbox, where the test reads its login code.
  /^SELECT .* FROM inbox_messages WHERE \(lower\("to"\)\) = \$1 /,
  // The control plane's headless walk of the test's onboarding flow: an onboarding by its id
  // (the control plane is told no partner).
  /^SELECT .* FROM onboardings WHERE id = \$1$/,
  // The inbox's cap, trimmed after a message is sent: every partner's messages, oldest first.
  /^SELECT .* FROM inbox_messages WHERE \(\$2\) = \$1( |$)/,
  // The sweeps: due work (every row under 'waiting')...
  /^SELECT .* FROM (onboardings|deposits|disputes) WHERE \(\$2\) = \$1 AND status = \$3 /,
  // ...the retention's time buckets and the dispatcher's endpoints with due work (an index's
  // keys, walked from key to key)...
  /^WITH RECURSIVE walk\(k\) AS \(\(SELECT \(.*\) FROM \w+ WHERE .* ORDER BY \(SELECT min\(inserted\) FROM \w+ WHERE .*\)$/,
  // ...and the partners whose clock is their own (every partner's time).
  /^SELECT .* FROM partners WHERE \((?:'own'|\$\d+)\) = \$1 AND clock IS NOT NULL ORDER BY inserted$/,
]

/**
 * The reads a request starts together go as one statement (read-batches.ts), each a
 * subquery: each is judged as the statement it would be alone.
 */
function readsOf(query: string): string[] {
  // pg_stat_statements shows the joins' `ON true` as `ON $n`.
  const batch = /^SELECT \* FROM \(SELECT\) one LEFT JOIN \((.*)\) r\d+ ON (?:true|\$\d+)$/s.exec(
    query,
  )
  return batch ? (batch[1] as string).split(/\) r\d+ ON (?:true|\$\d+) LEFT JOIN \(/) : [query]
}

const tenantTables = [...tenantCollections]
const touches = (text: string) =>
  tenantTables.some((t) => new RegExp(`\\b(FROM|INTO|UPDATE) ${t}\\b`).test(text))
/** `partner_id = $n` (a key that is the partner, `(partner_id) = $1`, too), or the partner's own row. */
const namesPartner = (text: string) =>
  /\(?\bpartner_id\)? = \$\d/.test(text) ||
  /ON CONFLICT \(partner_id, id\)/.test(text) ||
  /\bFROM partners WHERE id = \$\d/.test(text)

let server: PostgresServer | undefined

describePostgres("a partner's statements on PostgreSQL", () => {
  beforeAll(async () => {
    server = await startPostgres(['-c shared_preload_libraries=pg_stat_statements'])
  }, 60_000)
  afterAll(() => server?.stop())

  it('every statement of its API requests on a tenant table names the partner', async () => {
    const url = (server as PostgresServer).url
    const client = new pg.Client({ connectionString: url })
    client.on('error', () => {})
    await client.connect()
    const { call } = await setup({ database: url })
    try {
      await client.query('CREATE EXTENSION pg_stat_statements')
      await client.query('SELECT pg_stat_statements_reset()')
      const { token, userId } = await onboardedUser(call)
      const headers = bearer(token)
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await call(method, `/api/v1/partner${path}`, { creds: acme, headers, body })
        expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300)
        return res
      }
      await api('POST', '/cards/simulate-fund', { amount: 50 })
      await api('GET', '/cards/status')
      const buy = (
        await api('POST', '/cards/simulate-purchase', { amount: 20, merchant: { name: 'Shop' } })
      ).json.data.id as string
      await api('GET', '/cards/transactions?limit=10')
      await api('GET', `/transactions/${buy}`)
      await api('POST', `/transactions/${buy}/simulate-clearing`)
      const dispute = await api('POST', '/disputes', {
        transaction_id: buy,
        reason: 'incorrect_amount',
        amount: 5,
      })
      await api('GET', `/disputes/${dispute.json.data.id}`)
      await api('GET', '/disputes')
      await api('GET', '/users/me')
      await api('PATCH', '/users/me', { first_name: 'Renamed' })
      const hook = await api('POST', '/webhooks', {
        url: 'https://hooks.example.test/in',
        events: ['card.funded'],
      })
      await api('GET', '/webhooks')
      await api('GET', `/webhooks/${hook.json.webhook.id}/deliveries`)
      await api('GET', '/me')
      await api('GET', '/usage')
      const { rows } = await client.query<{ query: string; calls: string }>(
        "SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'",
      )
      const statements = rows.flatMap((r) => readsOf(r.query))
      const onTenants = statements.filter(touches)
      const unscoped = onTenants
        .filter((query) => !namesPartner(query) && !query.trimStart().startsWith('INSERT'))
        .filter((query) => !notAPartnersRequest.some((allowed) => allowed.test(query)))
      expect(unscoped).toEqual([])
      // Not vacuous: the flow read and wrote tenant tables by their partner, some of the reads
      // sent together.
      expect(onTenants.filter(namesPartner).length).toBeGreaterThan(10)
      expect(statements.length).toBeGreaterThan(rows.length)
      expect(userId).toMatch(/^[0-9a-f-]{36}$/)
    } finally {
      await client.end()
    }
  }, 60_000)
})
