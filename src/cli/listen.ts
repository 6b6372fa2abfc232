import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { callSandbox, type Remote } from './remote.js'

export interface ListenOptions {
  forwardTo: string
  events: string[]
  /** Port of the local listener (0: any free one). */
  port: number
  /** Address it binds: 127.0.0.1, or 0.0.0.0 for a sandbox in a container to reach it. */
  host: string
  /** The URL the sandbox should POST to, when it cannot reach 127.0.0.1 (Docker: host.docker.internal). */
  listenerUrl?: string
  print: (line: string) => void
}

/** Headers the hop to the local app sets itself. */
const hopHeaders = new Set([
  'host',
  'connection',
  'content-length',
  'keep-alive',
  'transfer-encoding',
])

/**
 * `partner-sandbox listen --forward-to URL`: a listener on 127.0.0.1 receives the sandbox's
 * deliveries and forwards each, byte for byte and with its signature headers, to the local app;
 * the app's status goes back to the sandbox, so its retries follow what the app answered. The
 * endpoint is created through the partner API (its secret printed once) and deleted on stop.
 */
export async function listen(remote: Remote, options: ListenOptions) {
  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    const started = performance.now()
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers))
      if (!hopHeaders.has(name) && typeof value === 'string') headers[name] = value
    let status = 502
    let note = ''
    try {
      const answer = await fetch(options.forwardTo, { method: 'POST', headers, body })
      status = answer.status
      await answer.arrayBuffer()
    } catch (error) {
      note = ` (${(error as Error).cause ?? (error as Error).message})`
    }
    const ms = Math.round(performance.now() - started)
    const event = parseEvent(body)
    // The webhook lab marks its deliveries (never ordinary ones): say which check this is.
    const lab = req.headers['x-sandbox-lab']
    const marked = typeof lab === 'string' ? ` LAB ${lab}` : ''
    options.print(
      `${new Date().toISOString()}  --> ${event.type} [${event.id}]${marked}  <-- [${status}] POST ${options.forwardTo} in ${ms} ms${note}`,
    )
    res.writeHead(status).end()
  })
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve))
  const { port } = server.address() as AddressInfo
  const url = options.listenerUrl ?? `http://127.0.0.1:${port}/webhooks`
  let created: { webhook: { id: string }; secret: string }
  try {
    created = (await callSandbox(remote, 'POST', '/api/v1/partner/webhooks', {
      as: 'partner',
      body: {
        url,
        events: options.events,
        description: `partner-sandbox listen → ${options.forwardTo}`,
      },
    })) as typeof created
  } catch (error) {
    server.close()
    throw error
  }
  options.print(
    `Ready! Forwarding ${options.events.length ? options.events.join(', ') : 'every event'} to ${options.forwardTo}\nWebhook signing secret: ${created.secret} (shown once; endpoint ${created.webhook.id})`,
  )
  return {
    webhookId: created.webhook.id,
    /** Deletes the endpoint and says so, or why not (then it is left to delete by hand). */
    async close(): Promise<boolean> {
      const path = `/api/v1/partner/webhooks/${created.webhook.id}`
      const removed = await callSandbox(remote, 'DELETE', path, { as: 'partner' }).then(
        () => {
          options.print(
            `Removed webhook endpoint ${created.webhook.id} (forwarding to ${options.forwardTo})`,
          )
          return true
        },
        (error: Error) => {
          options.print(
            `Could not remove webhook endpoint ${created.webhook.id}: ${error.message}; delete it with DELETE ${path}`,
          )
          return false
        },
      )
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      return removed
    },
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function parseEvent(body: Buffer): { type: string; id: string } {
  try {
    const event = JSON.parse(body.toString('utf8')) as { type?: string; id?: string }
    return { type: event.type ?? '?', id: event.id ?? '?' }
  } catch {
    return { type: '?', id: '?' }
  }
}
