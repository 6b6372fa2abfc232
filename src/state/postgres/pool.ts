import pg from 'pg'
import { outageOf } from '../database-error.js'
import { CONNECT_WAIT_MS } from '../database-url.js'
import { TURN_TAKEN } from './retries.js'

/**
 * The pool of one replica's connections (node-postgres), set up so that rows read back are the
 * rows written: bigint as a JS number (cents, epoch ms and counts are far below 2^53), and
 * timestamptz as the ISO 8601 text the rows keep (every session of the pool is in UTC).
 */

/** A UTC session's text of a timestamptz, its fraction (up to µs) captured. */
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/

/**
 * `2026-01-02 03:04:05.6+00` as `2026-01-02T03:04:05.600Z` (to the ms, as Date keeps it); a
 * text of another form (a year past 9999, say) goes through Date.
 */
function isoOf(text: string): string {
  const parts = UTC_TEXT.exec(text)
  if (parts === null)
    return new Date(`${text.replace(' ', 'T')}:00`.replace(/\+00:00$/, 'Z')).toISOString()
  return `${parts[1]}T${parts[2]}.${(parts[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (text: string) => Number(text)
    if (oid === pg.types.builtins.TIMESTAMPTZ) return isoOf
    return pg.types.getTypeParser(oid, format)
  },
}

/** Statement texts given a name so far, and how many may be (a replace's INSERTs vary in size). */
const names = new Map<string, string>()
const MAX_NAMED = 1_000

/**
 * `text` with its values as a named prepared statement (node-postgres prepares it once per
 * connection, then sends only its values): PostgreSQL parses and plans each of the engine's
 * statements once per connection rather than on every request. The texts are the few the
 * declarations make (statements.ts), so the names stay few.
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = names.get(text)
  if (name === undefined && names.size < MAX_NAMED) {
    name = `s${names.size + 1}`
    names.set(text, name)
  }
  return name === undefined ? { text, values } : { name, text, values }
}

/** `onIdleError` hears of a pooled connection that failed while idle (a restart, say). */
export function createPool(
  url: string,
  schema: string,
  size: number,
  onIdleError: (e: Error) => void,
) {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    application_name: 'partner-sandbox',
    options: `-c search_path=${schema} -c TimeZone=UTC`,
    types,
    // While PostgreSQL is out of reach a request waits this long for a connection, then is
    // answered 503: a client retries, rather than hanging on a dead socket.
    connectionTimeoutMillis: CONNECT_WAIT_MS,
    keepAlive: true,
    // A transaction's statements go out without waiting for the ones before (node-postgres's
    // pipelining: https://node-postgres.com/features/pipelining); PostgreSQL runs them in order.
    pipeline: true,
  })
  // An idle connection the server closed (a restart, pg_terminate_backend) is an 'error' event:
  // without a listener Node would end the process. The pool drops that connection and opens a
  // new one for the next query.
  pool.on('error', onIdleError)
  // A connection that breaks while checked out (a transaction under way) is an 'error' event on
  // its client, which would end the process too: the statement under way fails with the same
  // error, and the transaction says so (a 503), so the event itself needs nothing more.
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}

/**
 * Runs `fn` between `begin` and COMMIT on `client`; a throw rolls it back and is rethrown. A
 * `begin` whose last statement answers `turn` false found its partner's turn taken (retries.ts).
 */
export async function within<T>(client: pg.ClientBase, begin: string, fn: () => Promise<T>) {
  const began: pg.QueryResult | pg.QueryResult[] = await client.query(begin)
  try {
    if ([began].flat().at(-1)?.rows[0]?.turn === false)
      throw Object.assign(new Error("another transaction has this partner's turn"), {
        code: TURN_TAKEN,
      })
    const result = await fn()
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}

/**
 * `within` on a connection of the pool's own (one that broke meanwhile is not queryable, and the
 * pool drops it at release); a failure to reach the database is a DatabaseUnavailable. A
 * `begin` with `before` and `after` runs them around the transaction: the session lock of one
 * that runs alone (retries.ts, turns). A connection that could not give it back is closed,
 * never pooled with it.
 */
export async function transact<T>(
  pool: pg.Pool,
  url: string,
  begin: string | { before: string; begin: string; after: string },
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  try {
    const client = await pool.connect()
    let kept: Error | undefined
    try {
      if (typeof begin === 'string') return await within(client, begin, () => fn(client))
      await client.query(begin.before)
      try {
        return await within(client, begin.begin, () => fn(client))
      } finally {
        await client.query(begin.after).catch((error: Error) => {
          kept = error
        })
      }
    } finally {
      client.release(kept)
    }
  } catch (error) {
    throw outageOf(error, url)
  }
}
