import { type LookupAddress, lookup } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'

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

/** A name that resolved to the sandbox itself: the connection is never opened. */
class SelfTargetError extends Error {
  readonly code = 'ESELF'
}

/**
 * Resolves as Node would, then refuses the connection when an address is the sandbox itself
 * (self-target.ts): checked on the addresses the socket will use, not on a lookup of its own
 * that a name could answer differently.
 */
function guardedLookup(isSelf: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family)
      const all: LookupAddress[] = Array.isArray(address)
        ? address
        : [{ address, family: family ?? 4 }]
      const self = all.find((a) => isSelf(a.address))
      if (!self) return callback(null, address, family)
      callback(
        new SelfTargetError(
          `${hostname} resolves to ${self.address}, this sandbox itself: the sandbox never sends a webhook to its own API or control plane; point the endpoint at its built-in sink, /_sandbox/sink/<name>`,
        ),
        address,
        family,
      )
    })
}

export function send(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  /** Whether an address on a port is the sandbox itself: never connected to. */
  isSelf?: (address: string, port: number) => boolean,
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
    const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80))
    const req = lib.request(
      target,
      {
        method: 'POST',
        agent,
        ...(isSelf ? { lookup: guardedLookup((address) => isSelf(address, port)) } : {}),
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
        error:
          error instanceof SelfTargetError
            ? `not sent: ${error.message}`
            : error.code
              ? `${error.code}: ${error.message}`
              : error.message,
      }),
    )
    req.end(body)
  })
}

export const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300
