import { parseDatabaseUrl } from './postgres/postgres-state.js'

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
