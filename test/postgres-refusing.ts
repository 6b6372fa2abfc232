import type { AddressInfo } from 'node:net'
import { createServer, type Server } from 'node:net'

/**
 * A stand-in PostgreSQL server that refuses every login as a real one refuses a wrong password:
 * it asks for the password (cleartext), takes it, and answers FATAL 28P01. The test server
 * trusts every login (test/postgres-server.ts), so it cannot refuse one; this speaks just
 * enough of the protocol for the driver to meet the refusal it would meet in production.
 */
export interface RefusingServer {
  port: number
  /** The passwords the clients sent, in order. */
  passwords: string[]
  close(): Promise<void>
}

export async function startRefusingPostgres(): Promise<RefusingServer> {
  const passwords: string[] = []
  const server: Server = createServer((socket) => {
    let buffered = Buffer.alloc(0)
    let started = false
    let user = ''
    socket.on('error', () => {})
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk])
      // The startup message has no type byte: its length, then its body.
      if (!started && buffered.length >= 4 && buffered.length >= buffered.readInt32BE(0)) {
        const length = buffered.readInt32BE(0)
        // After the protocol version: name\0value\0 pairs.
        const params = buffered.subarray(8, length).toString('utf8').split('\0')
        user = params[params.indexOf('user') + 1] ?? ''
        buffered = buffered.subarray(length)
        started = true
        socket.write(message('R', int32(3))) // AuthenticationCleartextPassword
      }
      if (started && buffered.length >= 5 && buffered[0] === 0x70) {
        const length = buffered.readInt32BE(1)
        if (buffered.length < length + 1) return
        passwords.push(buffered.subarray(5, length).toString('utf8').replace(/\0$/, ''))
        const fields = [
          ['S', 'FATAL'],
          ['V', 'FATAL'],
          ['C', '28P01'],
          ['M', `password authentication failed for user "${user}"`],
        ]
        const body = Buffer.concat([
          ...fields.map(([code, text]) => Buffer.from(`${code}${text}\0`, 'utf8')),
          Buffer.from([0]),
        ])
        socket.end(message('E', body))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    passwords,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}

/** A backend message: its type, its length (itself included), its body. */
function message(type: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(type, 'ascii'), int32(body.length + 4), body])
}
