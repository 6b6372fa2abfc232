/**
 * The URL with its password replaced by `****`: what a banner, a message or an error may show.
 * A password written in a shell history or a compose file is a secret all the same.
 */
export function maskDatabaseUrl(raw: string): string {
  try {
    const url = new URL(raw)
    if (url.password) url.password = '****'
    return url.toString()
  } catch {
    // Not a URL (the error says so): everything between `user:` and the last `@` is hidden,
    // since where a malformed password ends cannot be known.
    return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):.*@/i, '$1:****@')
  }
}

/** `postgres://sandbox:****@db:5432/sandbox (schema partner_sandbox)`: where the state lives. */
export function describeDatabase(raw: string): string {
  const { url, schema } = parseDatabaseUrl(raw)
  return `${maskDatabaseUrl(url)} (schema ${schema})`
}

/** `db:5432`: the server a URL names (PostgreSQL's defaults where it names none). */
export function serverOf(raw: string): string {
  try {
    const url = new URL(raw)
    return `${url.hostname || 'localhost'}:${url.port || 5432}`
  } catch {
    return 'the URL given'
  }
}

/** The URL's password, decoded (for keeping it out of a message); '' when it has none. */
export function passwordOf(raw: string): string {
  try {
    return decodeURIComponent(new URL(raw).password)
  } catch {
    return ''
  }
}

/** The schema the sandbox's tables live in, unless the URL's `?schema=` names another. */
export const DEFAULT_SCHEMA = 'partner_sandbox'
/** Connections per replica, unless the URL's `?pool=` says otherwise. */
export const DEFAULT_POOL = 10
/** The largest `?pool=`. */
export const MAX_POOL = 100
/** How long a request waits for one of its replica's connections before it is answered 503. */
export const CONNECT_WAIT_MS = 3_000

/**
 * The driver's URL, the schema named by its `?schema=` and the pool size named by its `?pool=`
 * (both removed from what the driver sees).
 */
export function parseDatabaseUrl(raw: string): { url: string; schema: string; pool: number } {
  const url = new URL(raw)
  const schema = url.searchParams.get('schema') || DEFAULT_SCHEMA
  const poolText = url.searchParams.get('pool')
  url.searchParams.delete('schema')
  url.searchParams.delete('pool')
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`the database schema "${schema}" must be a plain SQL name (letters, digits, _)`)
  }
  const pool = poolText === null ? DEFAULT_POOL : Number(poolText)
  if (poolText !== null && (!/^[0-9]+$/.test(poolText) || pool < 1 || pool > MAX_POOL)) {
    throw new Error(`the database pool "${poolText}" must be a whole number from 1 to ${MAX_POOL}`)
  }
  return { url: url.toString(), schema, pool }
}
