import { writeSync } from 'node:fs'
import { afterEach, expect, it, vi } from 'vitest'
import { type LineWriterIo, lineWriter } from '../src/log-destination.js'

/**
 * The log writer (src/log-destination.ts) lets a line wait a little for the lines after it, so
 * under load one write carries many lines rather than the one or two each turn of the event
 * loop answers. Its write here records what each write carried.
 */

const writes: string[] = []

const recording: LineWriterIo = {
  fd: -1,
  writeSync,
  write(_fd, buffer, offset, length, _position, done) {
    writes.push(buffer.subarray(offset, offset + length).toString())
    setImmediate(() => done(null, length))
  },
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

afterEach(() => {
  vi.useRealTimers()
  writes.length = 0
})

it('lines of several turns share one write; 16 KiB waiting and a flush go at once', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  const { writeLine: writeStderrLine, flush: flushLogs } = lineWriter(recording)
  for (let i = 0; i < 5; i++) {
    writeStderrLine(`line ${i}`)
    await turn()
  }
  // Five turns went by: the lines are still waiting for their linger.
  expect(writes).toEqual([])
  vi.advanceTimersByTime(10)
  await turn()
  expect(writes).toEqual(['line 0\nline 1\nline 2\nline 3\nline 4\n'])

  // Past 16 KiB, what waits is written at the next turn, without the linger.
  const long = 'x'.repeat(17 * 1024)
  writeStderrLine('before')
  writeStderrLine(long)
  await turn()
  await turn()
  expect(writes.slice(1)).toEqual([`before\n${long}\n`])

  // A flush (a stop) writes at once what waits.
  writeStderrLine('last')
  await flushLogs()
  expect(writes.slice(2)).toEqual(['last\n'])
})
