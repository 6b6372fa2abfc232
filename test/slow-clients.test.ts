import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningSandbox, startSandbox } from '../src/index.js'
import { acme, engineOptions, httpCall, snapshotOf } from './helpers.js'

/**
 * Slow clients over a real socket, with short limits set by option (the defaults, 30 s for
 * a body and 10 s for headers, are the same code with other numbers).
 */

let sandbox: RunningSandbox
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    logLevel: 'silent',
    bodyTimeout: 600,
    headersTimeout: 600,
    ...engineOptions(),
  })
})
afterAll(() => sandbox.close())

interface Exchange {
  /** Everything the server sent until it closed the connection. */
  reply: string
  elapsedMs: number
  /** How many bytes of `drip` had been written when the server closed the connection. */
  dripped: number
}

/** Sends `head`, then `drip` one byte every 100 ms until the server closes the connection. */
function dribble(head: string, drip: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket: Socket = connect(sandbox.port, '127.0.0.1')
    let reply = ''
    let sent = 0
    const timer = setInterval(() => {
      if (sent < drip.length && !socket.destroyed) socket.write(drip[sent++] as string)
    }, 100)
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      reply += chunk
    })
    socket.on('error', () => {}) // a reset after the answer is the point of the test
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ reply, elapsedMs: Date.now() - started, dripped: sent })
    })
    socket.setTimeout(10_000, () => {
      clearInterval(timer)
      socket.destroy()
      reject(new Error(`the server kept a slow client for 10 s; got: ${reply}`))
    })
    socket.write(head)
  })
}

const credentials = `x-partner-key: ${acme.key}\r\nx-partner-secret: ${acme.secret}\r\n`
const body = JSON.stringify({ display_name: 'x'.repeat(60) })

describe('a slow request body', () => {
  it('is cut with a 408 in the envelope, the connection closed', async () => {
    const { reply, elapsedMs, dripped } = await dribble(
      `PATCH /api/v1/partner/me HTTP/1.1\r\nhost: 127.0.0.1\r\n${credentials}content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
      body,
    )
    expect(reply).toMatch(/^HTTP\/1\.1 408 /)
    expect(reply.toLowerCase()).toContain('connection: close')
    expect(reply.toLowerCase()).toMatch(/x-request-id: req_/)
    const json = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))
    expect(json).toMatchObject({ success: false, error: { code: 'request_timeout' } })
    expect(json.requestId).toMatch(/^req_/)
    // Not before its limit; and cut while the body was still dribbling in (all of it takes
    // 8 s at this pace), on the server's timer, whatever the machine's load.
    expect(elapsedMs).toBeGreaterThanOrEqual(550)
    expect(dripped).toBeLessThan(body.length)
  })

  it('is cut the same way when chunked', async () => {
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
    const { reply } = await dribble(
      `POST /_sandbox/sink/slow HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\ncontent-type: application/json\r\n\r\n`,
      chunked,
    )
    expect(reply).toMatch(/^HTTP\/1\.1 408 /)
    expect(reply).toContain('"code":"request_timeout"')
    // Nothing half-received was recorded.
    const sink = await sandbox.app.request('/_sandbox/sink/slow')
    expect(((await sink.json()) as { data: unknown[] }).data).toEqual([])
  })

  it('changes nothing', async () => {
    const before = await snapshotOf(httpCall(sandbox.url))
    await dribble(
      `PATCH /api/v1/partner/me HTTP/1.1\r\nhost: 127.0.0.1\r\n${credentials}content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
      body,
    )
    expect(await snapshotOf(httpCall(sandbox.url))).toBe(before)
  })
})

it('headers that never end get a 408 and the connection is closed', async () => {
  const header =
    'x-slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
  const { reply, dripped } = await dribble(
    'GET /api/v1/partner/me HTTP/1.1\r\nhost: 127.0.0.1\r\n',
    header,
  )
  expect(reply).toMatch(/^HTTP\/1\.1 408 /)
  // Closed while the header line was still coming (the server's timer, not the client's end).
  expect(dripped).toBeLessThan(header.length)
})

it('a body that arrives in time, even in pieces, is served', async () => {
  const small = '{"display_name":"Acme Slow"}'
  const socket = connect(sandbox.port, '127.0.0.1')
  const reply = await new Promise<string>((resolve) => {
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      text += chunk
      if (text.includes('\r\n\r\n')) resolve(text)
    })
    socket.write(
      `PATCH /api/v1/partner/me HTTP/1.1\r\nhost: 127.0.0.1\r\n${credentials}content-type: application/json\r\ncontent-length: ${small.length}\r\n\r\n`,
    )
    socket.write(small.slice(0, 5))
    setTimeout(() => socket.write(small.slice(5)), 200)
  })
  socket.destroy()
  expect(reply).toMatch(/^HTTP\/1\.1 200 /)
})

it('defaults to 30 s for a body and 10 s for headers, settable by flag or environment', async () => {
  const { parseOptions } = await import('../src/index.js')
  expect(parseOptions({})).toMatchObject({ bodyTimeout: 30_000, headersTimeout: 10_000 })
  expect(parseOptions({ bodyTimeout: '5s', headersTimeout: 2500 })).toMatchObject({
    bodyTimeout: 5_000,
    headersTimeout: 2_500,
  })
})
