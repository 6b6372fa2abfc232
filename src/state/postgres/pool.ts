import pg from 'pg'

/**
 * The pool of one replica's connections (node-postgres), set up so that rows read back are the
 * rows written: bigint as a JS number (cents, epoch ms and counts are far below 2^53), and
 * timestamptz as the ISO 8601 text the rows keep (every session of the pool is in UTC).
 */

const INT8 = 20
const TIMESTAMPTZ = 1184

/** `2026-01-02 03:04:05.6+00` (a UTC session's text of a timestamptz) as `2026-01-02T03:04:05.600Z`. */
export function isoOf(text: string): string {
  return new Date(`${text.replace(' ', 'T')}:00`.replace(/\+00:00$/, 'Z')).toISOString()
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (text: string) => Number(text)
    if (oid === TIMESTAMPTZ) return isoOf
    return pg.types.getTypeParser(oid, format)
  },
}

export interface PoolOptions {
  url: string
  schema: string
  size: number
  applicationName: string
  /** Told of a pooled connection that failed while idle (a restart, a terminated backend). */
  onIdleError?: (error: Error) => void
}

export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.size,
    application_name: options.applicationName,
    // Every session reads and writes the sandbox's schema, in UTC.
    options: `-c search_path=${options.schema} -c TimeZone=UTC`,
    types,
    // While PostgreSQL is out of reach a request waits this long for a connection, then is
    // answered 503: a client retries, rather than hanging on a dead socket.
    connectionTimeoutMillis: 3_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  })
  // An idle connection the server closed (a restart, pg_terminate_backend) is an 'error' event:
  // without a listener Node would end the process. The pool drops that connection and opens a
  // new one for the next query.
  pool.on('error', (error) => options.onIdleError?.(error))
  // A connection that breaks while checked out (a transaction under way) is an 'error' event on
  // its client, which would end the process too: the statement under way fails with the same
  // error, and the transaction says so (a 503), so the event itself needs nothing more.
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}
