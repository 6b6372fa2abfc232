import { expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { type Call, journalOf, setup } from './helpers.js'
import { describePostgres, freshDatabaseUrl } from './postgres.js'

// The request journal is a table: every replica on one database journals into it, and journal,
// count, find and verify through any replica see every replica's requests, newest first; a
// replica started again goes on with it.

const ME = '/api/v1/partner/me'
/** A replica: a sandbox (setup) on `database`. */
const replica = (database: string) => setup({ database })

/** The `n` query values of the journaled GETs of /partner/me, newest first. */
const numbers = async (call: Call, query: Record<string, string> = {}) =>
  (await journalOf(call, { path: ME, ...query })).map((e) => e.query.n)

describePostgres('the request journal of replicas on one database', () => {
  it('lists, counts, finds and verifies every replica’s requests, newest first', async () => {
    const database = freshDatabaseUrl()
    const replicas = [await replica(database), await replica(database)]
    const ids: string[] = []
    for (let n = 0; n < 6; n++) {
      const { call } = replicas[n % 2] as { call: Call }
      const res = await call('GET', `${ME}?n=${n}`)
      expect(res.status).toBe(200)
      ids.push(res.headers.get('x-request-id') as string)
    }
    const newestFirst = ['5', '4', '3', '2', '1', '0']
    for (const { call } of replicas) {
      expect(await numbers(call)).toEqual(newestFirst)
      expect(await numbers(call, { partner_id: DEFAULT_PARTNER.id })).toEqual(newestFirst)
      const count = await call('GET', `/_sandbox/requests/count?path=${ME}`, { creds: null })
      expect(count.json.count).toBe(6)
      for (const [n, id] of ids.entries()) {
        const found = await call('GET', `/_sandbox/requests/${id}`, { creds: null })
        expect(found.status, found.text).toBe(200)
        expect(found.json.query.n).toBe(String(n))
        // Headers and bodies too, whichever replica answered.
        expect(found.json.response.body.partner.id).toBe(DEFAULT_PARTNER.id)
      }
      const verified = await call('POST', '/_sandbox/requests/verify', {
        creds: null,
        body: { method: 'GET', path: ME, query: { n: '3' }, times: 1 },
      })
      expect(verified.json.matched, verified.text).toBe(true)
    }
  })

  it('a replica started again goes on with the journal, the older requests kept', async () => {
    const database = freshDatabaseUrl()
    const first = await replica(database)
    for (let n = 0; n < 3; n++) await first.call('GET', `${ME}?n=${n}`)
    await first.sandbox.close()
    const again = await replica(database)
    for (let n = 3; n < 5; n++) await again.call('GET', `${ME}?n=${n}`)
    expect(await numbers(again.call)).toEqual(['4', '3', '2', '1', '0'])
    expect(await numbers(again.call, { partner_id: DEFAULT_PARTNER.id })).toEqual([
      '4',
      '3',
      '2',
      '1',
      '0',
    ])
  })
})
