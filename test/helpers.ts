import { createSandbox, type SandboxOptions } from '../src/index.js'
import { DEFAULT_PARTNER, SECOND_PARTNER } from '../src/store/default-credentials.js'

export const acme = { key: DEFAULT_PARTNER.api_key, secret: DEFAULT_PARTNER.api_secret }
export const northwind = { key: SECOND_PARTNER.api_key, secret: SECOND_PARTNER.api_secret }
export type Creds = { key: string; secret: string }

export const orgHeaders = (creds: Creds) => ({
  'x-partner-key': creds.key,
  'x-partner-secret': creds.secret,
})

export interface CallOptions {
  creds?: Creds | null
  body?: unknown
  /** Sent as-is (no JSON encoding) when a string. */
  raw?: string
  headers?: Record<string, string>
}

/** A fresh in-memory sandbox and a small client over `app.request()`. */
export async function testSandbox(options: SandboxOptions = {}) {
  const sandbox = await createSandbox({ logLevel: 'silent', ...options })
  const call = async (method: string, path: string, opts: CallOptions = {}) => {
    const headers: Record<string, string> = {
      ...(opts.creds === null ? {} : orgHeaders(opts.creds ?? acme)),
    }
    let body: string | undefined
    if (opts.raw !== undefined) body = opts.raw
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] = 'application/json'
    }
    const res = await sandbox.app.request(path, {
      method,
      body,
      headers: { ...headers, ...opts.headers },
    })
    const text = await res.text()
    // biome-ignore lint/suspicious/noExplicitAny: tests read response fields freely and assert each one
    let json: any
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, json, text }
  }
  return { sandbox, call }
}
