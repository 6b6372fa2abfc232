import { createRequire } from 'node:module'

/**
 * A client of a node process's V8 inspector (started with `--inspect=127.0.0.1:0`) that can
 * ask it for a full garbage collection, so the soak reads the sandbox's RSS at the same point
 * of V8's collection cycle in every window: what the rows hold, not how much garbage happened
 * to be waiting. Only HeapProfiler.collectGarbage is sent: no domain is enabled, so nothing
 * in the process is instrumented between requests.
 */

/** The part of `ws` (a dev dependency without bundled types) this client uses. */
interface Socket {
  on(event: 'open', listener: () => void): void
  on(event: 'message', listener: (data: Buffer) => void): void
  on(event: 'error', listener: (error: Error) => void): void
  on(event: 'close', listener: () => void): void
  send(data: string): void
  close(): void
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => Socket

export interface Inspector {
  /** Resolves when V8 has finished a full (memory-reducing) collection of the process. */
  collectGarbage(): Promise<void>
  close(): void
}

/** The inspector's WebSocket address in what node wrote to stderr, once it is there. */
export function inspectorUrl(stderr: string): string | undefined {
  return /^Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)$/m.exec(stderr)?.[1]
}

export async function connectInspector(url: string): Promise<Inspector> {
  const socket = new WebSocket(url)
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>()
  let closed: Error | undefined
  const fail = (error: Error) => {
    closed = error
    for (const call of pending.values()) call.reject(error)
    pending.clear()
  }
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; error?: { message: string } }
    const call = message.id === undefined ? undefined : pending.get(message.id)
    if (!call) return // an event; none is enabled, but the protocol allows them
    pending.delete(message.id as number)
    if (message.error) call.reject(new Error(`inspector: ${message.error.message}`))
    else call.resolve()
  })
  socket.on('close', () => fail(new Error('the inspector connection closed')))
  await new Promise<void>((resolve, reject) => {
    socket.on('open', resolve)
    socket.on('error', reject)
  })
  socket.on('error', fail)
  let serial = 0
  return {
    collectGarbage() {
      if (closed) return Promise.reject(closed)
      const id = ++serial
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject })
        socket.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }))
      })
    },
    close() {
      socket.close()
    },
  }
}
