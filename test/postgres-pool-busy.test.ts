import pg from 'pg'
import { expect, it } from 'vitest'
import { setup } from './helpers.js'
import { describePostgres, freshDatabaseUrl, testDatabase } from './postgres.js'

// A replica whose every connection is taken for the whole connection wait (more load than its
// pool carries, or connections that will not open) answers 503 with Retry-After, saying so
// rather than that the database is gone, and serves again once a connection comes free.

const ME = '/api/v1/partner/me'

describePostgres('a replica whose every connection stays taken', () => {
  it('answers 503 naming its pool, then serves again', async () => {
    const url = freshDatabaseUrl()
    const schema = new URL(url).searchParams.get('schema') as string
    const { call } = await setup({ database: `${url}&pool=1` })
    expect((await call('GET', ME)).status).toBe(200)
    // A client of the test's own locks the partners table: the replica's one connection, taken
    // by the next statement that reads it, waits on the lock until the test lets it go.
    const locker = new pg.Client({ connectionString: testDatabase })
    await locker.connect()
    await locker.query('BEGIN')
    await locker.query(`LOCK TABLE ${schema}.partners IN ACCESS EXCLUSIVE MODE`)
    const pending = [call('GET', ME), call('GET', ME), call('GET', ME)]
    try {
      // Whichever statement took the connection waits on the lock; the others wait for it,
      // and the first answer comes once their wait is over.
      const first = await Promise.race(pending)
      expect(first.status, first.text).toBe(503)
    } finally {
      await locker.query('ROLLBACK')
      await locker.end()
    }
    const answers = await Promise.all(pending)
    const busy = answers.filter((res) => res.status === 503)
    expect(busy.length).toBeGreaterThan(0)
    for (const res of busy) {
      expect(res.headers.get('retry-after')).toBe('2')
      expect(res.json.error.code).toBe('service_unavailable')
      expect(res.json.error.message).toMatch(
        /^The sandbox's database is overloaded or out of reach \(the one connection of this replica's pool to PostgreSQL at 127\.0\.0\.1:\d+ stayed taken for 3 s /,
      )
      expect(res.json.error.message).not.toContain('password')
    }
    // Every answer is a 200 or that refusal; and the replica serves again.
    for (const res of answers) expect([200, 503]).toContain(res.status)
    const again = await call('GET', ME)
    expect(again.status, again.text).toBe(200)
  })
})
