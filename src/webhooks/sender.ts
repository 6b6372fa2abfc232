import http from 'node:http'
import https from 'node:https'

/**
 * POSTs one delivery. Keep-alive agents (a socket pool per origin) make fan-out cheap; the
 * timeout covers the whole exchange, and the response body is read and dropped (only the
 * status counts: 2xx is success, anything else is a failure).
 */

export interface SendResult {
  status: number | null
  durationMs: number
  error: string | null
}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
}

export function send(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  return new Promise((resolve) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      resolve({ status: null, durationMs: 0, error: `invalid URL ${url}` })
      return
    }
    const agent = agents[target.protocol as keyof typeof agents]
    if (!agent) {
      resolve({ status: null, durationMs: 0, error: `unsupported protocol ${target.protocol}` })
      return
    }
    let settled = false
    const finish = (result: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const lib = target.protocol === 'https:' ? https : http
    const req = lib.request(
      target,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.on('data', () => {})
        res.on('end', () =>
          finish({ status: res.statusCode ?? null, durationMs: elapsed(), error: null }),
        )
        res.on('error', (error) =>
          finish({ status: res.statusCode ?? null, durationMs: elapsed(), error: error.message }),
        )
      },
    )
    const timer = setTimeout(() => {
      finish({ status: null, durationMs: elapsed(), error: `timed out after ${timeoutMs} ms` })
      req.destroy()
    }, timeoutMs)
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        status: null,
        durationMs: elapsed(),
        error: error.code ? `${error.code}: ${error.message}` : error.message,
      }),
    )
    req.end(body)
  })
}

export const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300
