import { ControlPlaneError } from './errors.js'

export interface ControlClientOptions {
  /** The sandbox's admin token (`--admin-token`, SANDBOX_ADMIN_TOKEN), when it has one. */
  adminToken?: string
  /** The fetch to use: the global one by default; `sandbox.fetch` to stay in process. */
  fetch?: (input: Request) => Response | Promise<Response>
}

type Query = Record<string, string | number | boolean | undefined>

export interface Transport {
  readonly baseUrl: string
  request<T>(
    method: string,
    path: string,
    options?: { query?: Query; body?: unknown; signal?: AbortSignal },
  ): Promise<T>
}

/** JSON over HTTP to `/_sandbox`, with the admin token, and typed errors from the envelope. */
export function createTransport(url: string, options: ControlClientOptions = {}): Transport {
  const baseUrl = url.replace(/\/+$/, '')
  const send = options.fetch ?? ((request: Request) => fetch(request))
  return {
    baseUrl,
    async request<T>(
      method: string,
      path: string,
      { query, body, signal }: { query?: Query; body?: unknown; signal?: AbortSignal } = {},
    ): Promise<T> {
      const target = new URL(`${baseUrl}${path}`)
      for (const [key, value] of Object.entries(query ?? {})) {
        if (value !== undefined) target.searchParams.set(key, String(value))
      }
      const headers: Record<string, string> = { accept: 'application/json' }
      if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`
      if (body !== undefined) headers['content-type'] = 'application/json'
      const res = await send(
        new Request(target, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        }),
      )
      const text = await res.text()
      let json: unknown
      try {
        json = text ? JSON.parse(text) : undefined
      } catch {
        json = undefined
      }
      if (!res.ok) {
        const envelope = (json ?? {}) as {
          error?: { code?: string; message?: string; details?: ControlPlaneError['details'] }
          requestId?: string
        }
        throw new ControlPlaneError(
          res.status,
          envelope.error?.code ?? 'http_error',
          envelope.error?.message ?? (text.slice(0, 200) || res.statusText),
          envelope.error?.details,
          envelope.requestId,
          method,
          path,
        )
      }
      return json as T
    },
  }
}
