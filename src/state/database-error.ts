import pg from 'pg'
import {
  CONNECT_WAIT_MS,
  maskDatabaseUrl,
  parseDatabaseUrl,
  passwordOf,
  serverOf,
} from './database-url.js'

/**
 * The database given with `--database` cannot be used: the message is one line that says why
 * and what to check, never the password; the driver's error is its `cause`.
 */
export class DatabaseError extends Error {
  override name = 'DatabaseError'
}

/**
 * A query could not reach PostgreSQL (it restarted, failed over, dropped the connection): the
 * request is answered 503 with Retry-After, and nothing it did was committed unless the answer
 * said so. The replica goes on; the pool connects again once the database is back.
 */
export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable'
}

/**
 * A DatabaseUnavailable of a request that waited CONNECT_WAIT_MS while every connection of its
 * replica's pool was taken: by other requests (more load than the pool and the server carry),
 * or still opening (a server slow to answer, or gone). Answered 503 all the same; the message
 * says which it was, so that an operator looks at the load before the network.
 */
export class DatabaseBusy extends DatabaseUnavailable {
  override name = 'DatabaseBusy'
}

/** pg-pool's words for a request that waited its whole connection timeout on a full pool. */
const waitedOnFullPool = (error: unknown) =>
  (error as { message?: unknown } | undefined)?.message ===
  'timeout exceeded when trying to connect'

/** SQLSTATE classes and codes of a server going away or not taking connections yet. */
const OUTAGE_STATES = /^(08|57P0[1-4]|53300)/
/** What node-postgres says of a connection that broke or never opened. */
const OUTAGE_MESSAGES =
  /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Connection ended|ECONNREFUSED|ECONNRESET/i

/** Whether `error` says the database is out of reach, rather than that a statement failed. */
export function isOutage(error: unknown): boolean {
  if (error instanceof DatabaseUnavailable) return true
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (OUTAGE_STATES.test(code) || unreachable[code])) return true
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true
  return typeof message === 'string' && OUTAGE_MESSAGES.test(message)
}

/** `error` as a DatabaseUnavailable naming the server, when it is an outage; else itself. */
export function outageOf(error: unknown, url: string): unknown {
  if (error instanceof DatabaseUnavailable || !isOutage(error)) return error
  const message = withoutPassword(describe(error, url), url)
  if (waitedOnFullPool(error)) return new DatabaseBusy(message, { cause: error })
  return new DatabaseUnavailable(message, { cause: error })
}

/** Connection failures (Node's socket codes) and what each means. */
const unreachable: Record<string, string> = {
  ECONNREFUSED:
    'connection refused (is PostgreSQL running there, and are the host and port right?)',
  ENOTFOUND: 'no such host (check the host in the URL)',
  EAI_AGAIN: 'its host name could not be resolved now (DNS)',
  CONNECT_TIMEOUT: 'no answer within the connect timeout (a firewall, or a wrong host?)',
  ETIMEDOUT: 'no answer (a firewall, or a wrong host?)',
  EHOSTUNREACH: 'no route to that host',
  ENETUNREACH: 'no route to that network',
  ECONNRESET: 'the server closed the connection',
}

/** SQLSTATEs of a refused login, and of a database that does not exist. */
const loginRefused = new Set(['28P01', '28000'])
const noSuchDatabase = '3D000'
const insufficientPrivilege = '42501'

/** `error`, from opening or migrating the database at `url`, as a DatabaseError. */
export function databaseError(error: unknown, url: string): DatabaseError {
  if (error instanceof DatabaseError) return error
  return new DatabaseError(withoutPassword(describe(error, url), url), { cause: error })
}

function describe(error: unknown, url: string): string {
  const where = `PostgreSQL at ${serverOf(url)}`
  const { code, message } = error as { code?: unknown; message?: unknown }
  const text = firstLine(typeof message === 'string' ? message : String(error))
  if (code === 'ERR_INVALID_URL')
    return `${maskDatabaseUrl(url)} is not a valid URL (postgres://user:password@host:5432/database)`
  if (error instanceof pg.DatabaseError && typeof error.code === 'string') {
    // pg_hba.conf's refusal of a connection without TLS ends "no encryption".
    if (loginRefused.has(error.code) && /no encryption/.test(text))
      return `${where} refused the login: ${text} (it wants TLS: add ?sslmode=require to the URL)`
    if (loginRefused.has(error.code))
      return `${where} refused the login: ${text} (check the user and password in the URL)`
    if (error.code === noSuchDatabase)
      return `${where}: ${text} (create it, or name another database in the URL)`
    // CREATE SCHEMA IF NOT EXISTS, run at every start, needs CREATE on the database even when
    // the schema exists.
    if (error.code === insufficientPrivilege && /for database/.test(text))
      return `${where}: ${text} (the URL's user needs CREATE on it: ${grantOf(url)})`
    return `${where}: ${text}`
  }
  if (typeof code === 'string' && unreachable[code])
    return `cannot connect to ${where}: ${unreachable[code]}`
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
    return `cannot connect to ${where}: ${code}`
  if (waitedOnFullPool(error)) {
    const { pool } = parseDatabaseUrl(url)
    const all = pool === 1 ? 'the one connection' : `all ${pool} connections`
    return `${all} of this replica's pool to ${where} stayed taken for ${CONNECT_WAIT_MS / 1000} s (busy with other requests, or still opening; more connections: ?pool= in the URL)`
  }
  if (OUTAGE_MESSAGES.test(text)) return `lost the connection to ${where}: ${text}`
  // The engine's own refusals (a schema newer than this build, a schema name that is no SQL
  // name) already say what is wrong and what to do.
  if (typeof code !== 'string') return text
  return `${where}: ${text}`
}

/** `GRANT CREATE ON DATABASE "sandbox" TO "app"`, for the URL's database and user. */
function grantOf(raw: string): string {
  const url = new URL(raw)
  const user = decodeURIComponent(url.username) || 'USER'
  const database = decodeURIComponent(url.pathname.slice(1)) || user
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`
  return `GRANT CREATE ON DATABASE ${quote(database)} TO ${quote(user)}`
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() || 'unknown error'
}

/**
 * Neither the server nor the driver is known to repeat a password, and the URLs above are
 * masked: this is the last guard. A password of a few letters would also match ordinary words
 * of the message, so such a one is left to the masking above.
 */
function withoutPassword(message: string, url: string): string {
  const password = passwordOf(url)
  return password.length >= 4 ? message.replaceAll(password, '****') : message
}
