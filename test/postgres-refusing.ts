import type { AddressInfo } from 'node:net'
import { createServer, type Server } from 'node:net'

/**
 * A stand-in PostgreSQL server that refuses every login as a real one refuses a wrong password:
 * it asks for the password (cleartext), takes it, and answers FATAL 28P01 (or refuses a
 * connection without TLS, below). The test server
 * trusts every login (test/postgres-server.ts), so it cannot refuse one; this speaks just
 * enough of the protocol for the driver to meet the refusal it would meet in production.
 */
export interface RefusingServer {
  port: number
  /** The passwords the clients sent, in order. */
  passwords: string[]
  close(): Promise<void>
}

/**
 * `withoutTls`: refuse at once, as pg_hba.conf refuses a connection that is not encrypted
 * where only `hostssl` lines match (before any password is asked).
 */
export async function startRefusingPostgres({ withoutTls = false } = {}): Promise<RefusingServer> {
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
        if (withoutTls) {
          const text = `no pg_hba.conf entry for host "127.0.0.1", user "${user}", database "${params[params.indexOf('database') + 1]}", no encryption`
          return void socket.end(fatal('28000', text))
        }
        socket.write(message('R', int32(3))) // AuthenticationCleartextPassword
      }
      if (started && buffered.length >= 5 && buffered[0] === 0x70) {
        const length = buffered.readInt32BE(1)
        if (buffered.length < length + 1) return
        passwords.push(buffered.subarray(5, length).toString('utf8').replace(/\0$/, ''))
        socket.end(fatal('28P01', `password authentication failed for user "${user}"`))
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

/** An ErrorResponse of severity FATAL: the server's last word on a connection. */
function fatal(sqlstate: string, text: string): Buffer {
  const fields = [
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', sqlstate],
    ['M', text],
  ]
  const body = Buffer.concat([
    ...fields.map(([code, value]) => Buffer.from(`${code}${value}\0`, 'utf8')),
    Buffer.from([0]),
  ])
  return message('E', body)
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
