import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { redactHeaders, redactString, redactValue } from '../http/redact.js'
import type { Contract } from './contract.js'
import { type Difference, differencesOf, type Exchange } from './differences.js'

/**
 * The drift proxy (`partner-sandbox proxy --upstream URL`): forwards a partner's traffic to
 * another deployment of the API, unchanged both ways, and checks each request and answer
 * against the sandbox's contract. Each difference is a line of the report (JSON lines), with
 * secrets redacted; `record` keeps each exchange, redacted, as a file of its own.
 */

export interface ProxyOptions {
  /** Where the traffic goes: only a 127.0.0.1 URL (upstreamProblem). */
  upstream: string
  contract: Contract
  port: number
  host: string
  /** The report file: one JSON line per difference. */
  report: string
  /** A folder for the redacted exchanges. */
  record?: string
  onDifference?: (difference: Difference) => void
}

export interface RunningProxy {
  url: string
  close(): Promise<void>
}

/** Why `url` cannot be the upstream, or undefined when it can. */
export function upstreamProblem(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'must be a URL such as http://127.0.0.1:4010'
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return 'must be an http:// or https:// URL'
  if (parsed.hostname !== '127.0.0.1')
    return 'must be on 127.0.0.1: this build forwards only to a deployment on this machine'
  return undefined
}

/** Headers that belong to one connection, not to the message (RFC 9110 section 7.6.1). */
const HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'host',
  'content-length',
  // Asked for and answered in the identity encoding: the proxy reads the bodies it passes on.
  'accept-encoding',
  'content-encoding',
])

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })

const messageHeaders = (raw: IncomingMessage['headers']) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(raw)) {
    if (HOP.has(name) || value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  }
  return headers
}

const redactedBody = (text: string) => {
  try {
    return redactValue(JSON.parse(text))
  } catch {
    return redactString(text)
  }
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const upstream = new URL(options.upstream)
  let exchanges = 0
  writeFileSync(options.report, '')
  if (options.record) mkdirSync(options.record, { recursive: true })

  const server: Server = createServer(async (req, res) => {
    try {
      const requestBody = await readBody(req)
      const requestHeaders = messageHeaders(req.headers)
      const target = new URL(req.url ?? '/', upstream)
      const answer = await fetch(target, {
        method: req.method,
        headers: requestHeaders,
        body: requestBody.length > 0 ? requestBody : undefined,
        redirect: 'manual',
      })
      const responseBody = Buffer.from(await answer.arrayBuffer())
      const responseHeaders = new Headers()
      for (const [name, value] of answer.headers)
        if (!HOP.has(name)) responseHeaders.append(name, value)
      const exchange: Exchange = {
        method: req.method ?? 'GET',
        path: target.pathname,
        requestHeaders,
        requestBody: requestBody.toString('utf8'),
        status: answer.status,
        responseHeaders,
        responseBody: responseBody.toString('utf8'),
      }
      const differences = differencesOf(options.contract, exchange).map((d) => ({
        ...d,
        message: redactString(d.message),
      }))
      for (const d of differences) {
        appendFileSync(
          options.report,
          `${JSON.stringify({ at: new Date().toISOString(), ...d })}\n`,
        )
        options.onDifference?.(d)
      }
      if (options.record) record(options.record, ++exchanges, exchange, target, differences)
      // Answered once the report has it: a test reads the report as soon as its call returns.
      res.writeHead(answer.status, Object.fromEntries(responseHeaders))
      res.end(responseBody)
    } catch (error) {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            success: false,
            error: {
              code: 'bad_gateway',
              message: `The proxy could not reach ${upstream.origin}: ${(error as Error).message}`,
            },
          }),
        )
      }
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${options.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** One exchange as a file of the record folder, every secret redacted. */
function record(
  dir: string,
  n: number,
  exchange: Exchange,
  target: URL,
  differences: Difference[],
) {
  const name = `${String(n).padStart(5, '0')}-${exchange.method.toLowerCase()}${exchange.path.replace(/[^\w]+/g, '-')}.json`
  const doc = {
    request: {
      method: exchange.method,
      path: exchange.path,
      query: redactString(target.search),
      headers: redactHeaders(exchange.requestHeaders),
      body: exchange.requestBody ? redactedBody(exchange.requestBody) : null,
    },
    response: {
      status: exchange.status,
      headers: redactHeaders(exchange.responseHeaders),
      body: exchange.responseBody ? redactedBody(exchange.responseBody) : null,
    },
    differences,
  }
  writeFileSync(join(dir, name), `${JSON.stringify(doc, null, 2)}\n`)
}
