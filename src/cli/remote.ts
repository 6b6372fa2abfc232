import { DEFAULT_PARTNER } from '../store/default-credentials.js'

/** What `listen` and `trigger` need to reach a running sandbox (flags, else environment). */
export interface Remote {
  url: string
  adminToken?: string
  key: string
  secret: string
}

export function remoteFrom(values: Record<string, unknown>): Remote {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
  return {
    url: (str(values.url) ?? process.env.SANDBOX_URL ?? 'http://127.0.0.1:4010').replace(/\/$/, ''),
    adminToken: str(values['admin-token']) ?? str(process.env.SANDBOX_ADMIN_TOKEN),
    key: str(values.key) ?? str(process.env.SANDBOX_PARTNER_KEY) ?? DEFAULT_PARTNER.api_key,
    secret:
      str(values.secret) ?? str(process.env.SANDBOX_PARTNER_SECRET) ?? DEFAULT_PARTNER.api_secret,
  }
}

/** A JSON call to the sandbox; throws an Error with the sandbox's own message on failure. */
export async function callSandbox(
  remote: Remote,
  method: string,
  path: string,
  options: { body?: unknown; as: 'partner' | 'admin' },
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> =
    options.as === 'partner'
      ? { 'X-Partner-Key': remote.key, 'X-Partner-Secret': remote.secret }
      : remote.adminToken
        ? { Authorization: `Bearer ${remote.adminToken}` }
        : {}
  if (options.body !== undefined) headers['Content-Type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(`${remote.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    })
  } catch (error) {
    throw new Error(
      `cannot reach the sandbox at ${remote.url} (${(error as Error).cause ?? (error as Error).message}); start it or pass --url`,
    )
  }
  const text = await res.text()
  const json = text ? (JSON.parse(text) as Record<string, unknown>) : {}
  if (!res.ok) {
    const error = json.error as { message?: string } | undefined
    throw new Error(`${method} ${path}: ${res.status} ${error?.message ?? text}`)
  }
  return json
}
