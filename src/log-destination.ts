import { write as fsWrite, writeSync as fsWriteSync } from 'node:fs'

/**
 * Where log lines go when no `onLog` is given: stderr, buffered and written asynchronously.
 * A line is copied at once as UTF-8 into a 64 KiB buffer; what a buffer holds leaves in one
 * `fs.write` from the thread pool, LINGER_MS after the first line waiting (at once past
 * 16 KiB), instead of a synchronous write(2) per request on the event loop. The linger is what
 * makes a write carry many lines under load: written at the next turn, each write carried the
 * line or two a turn answers, and the writes cost a twentieth of the sandbox's time. Copying at
 * once is the point: a line queued as a string (as sonic-boom, pino's writer, queues them)
 * lives until its write is done, long enough to survive a young-generation collection or
 * two, and every collection then copies and promotes a few hundred of them (measured: a
 * third of the sandbox's time at `info` went to collecting). A buffer's bytes are not on
 * the JavaScript heap, and two buffers are reused in turn.
 * One writer per process: every sandbox in it shares fd 2, and one exit hook writes what is
 * still queued; a sandbox's close() awaits flushLogs(), so the CLI's stop on SIGTERM or
 * SIGINT loses no line.
 */

/** Queued bytes past which new lines are dropped: a reader that stops must not grow the heap. */
const MAX_QUEUED = 16 * 1024 * 1024
/** A stop waits at most this long for a reader that does not read (a full pipe). */
const FLUSH_WAIT_MS = 3_000
/** A full non-blocking pipe (EAGAIN, EBUSY) is tried again after this long. */
const RETRY_MS = 100
const CHUNK = 64 * 1024
/** A line waits at most this long for the lines after it to share its write. */
const LINGER_MS = 10
/** Bytes waiting past which they are written at the next turn, without lingering. */
const FULL = 16 * 1024

/** A full non-blocking pipe or terminal: worth another try (as sonic-boom retries them). */
const busy = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'EAGAIN' || code === 'EBUSY'
}

/** What a line writer writes with: node:fs's write and writeSync on a descriptor. */
export interface LineWriterIo {
  write(
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
    position: null,
    done: (error: NodeJS.ErrnoException | null, written: number) => void,
  ): void
  writeSync(fd: number, buffer: Buffer, offset: number, length: number): number
  fd: number
}

/** A buffered writer of lines to one descriptor (the process's stderr writer, below). */
export function lineWriter(io: LineWriterIo) {
  /** Buffers written out, ready to be filled again (at most two are kept). */
  const spare: Buffer[] = []
  let filling: Buffer | undefined
  let used = 0
  /** Filled bytes waiting for their write, oldest first. */
  const ready: Buffer[] = []
  let queued = 0
  let writing = false
  let scheduled = false
  /** The linger's timer, while a write waits for it. */
  let lingering: NodeJS.Timeout | undefined
  /** Set once stderr is gone (EPIPE when its reader closed): lines are dropped, as before. */
  let broken = false
  /** Called once nothing is queued (flushLogs). */
  let drained: Array<() => void> = []

  /** Queues one line (a newline is added). */
  function writeLine(line: string): void {
    if (broken) return
    const text = `${line}\n`
    // A UTF-16 unit is at most 3 bytes of UTF-8: the exact length is measured only near a limit.
    let bytes = text.length * 3
    let into = filling
    if (into === undefined || CHUNK - used < bytes || queued + used + bytes > MAX_QUEUED) {
      bytes = Buffer.byteLength(text)
      if (queued + used + bytes > MAX_QUEUED) return
      if (into === undefined || CHUNK - used < bytes) {
        seal()
        if (bytes > CHUNK) {
          ready.push(Buffer.from(text))
          queued += bytes
          schedule()
          return
        }
        into = spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK)
        filling = into
      }
    }
    used += into.write(text, used)
    schedule()
  }

  /** Moves the filled part of the current buffer to the queue. */
  function seal(): void {
    if (filling === undefined || used === 0) return
    ready.push(filling.subarray(0, used))
    queued += used
    filling = undefined
    used = 0
  }

  function schedule(): void {
    if (writing) return
    const full = queued + used >= FULL
    if (scheduled && !(full && lingering)) return
    if (lingering) clearTimeout(lingering)
    scheduled = true
    if (full) {
      lingering = undefined
      setImmediate(flushNow)
    } else {
      // Unreferenced: the exit hook writes what is left of a process that is ending.
      lingering = setTimeout(flushNow, LINGER_MS)
      lingering.unref()
    }
  }

  function flushNow(): void {
    scheduled = false
    lingering = undefined
    seal()
    writeNext()
  }

  function writeNext(): void {
    if (writing || broken) return
    const chunk = ready[0]
    if (chunk === undefined) {
      if (used > 0) schedule()
      else settle()
      return
    }
    writing = true
    io.write(io.fd, chunk, 0, chunk.length, null, (error, written) => {
      writing = false
      if (error) {
        if (busy(error)) {
          writing = true
          setTimeout(() => {
            writing = false
            writeNext()
          }, RETRY_MS).unref()
          return
        }
        giveUp()
        return
      }
      wrote(chunk, written)
      // A whole buffer waiting goes now; lines still coming are given their linger.
      if (ready.length > 0 || used >= FULL) {
        if (ready.length === 0) seal()
        writeNext()
      } else if (used > 0) schedule()
      else settle()
    })
  }

  /** Takes `written` bytes of the oldest queued chunk off the queue. */
  function wrote(chunk: Buffer, written: number): void {
    queued -= written
    if (written < chunk.length) {
      ready[0] = chunk.subarray(written)
      return
    }
    ready.shift()
    // A whole buffer comes back to be filled again (its first chunk spans from offset 0).
    if (chunk.byteOffset === 0 && chunk.buffer.byteLength === CHUNK && spare.length < 2)
      spare.push(Buffer.from(chunk.buffer, 0, CHUNK))
  }

  /** stderr is gone (EPIPE, EBADF): what is queued and what comes is dropped. */
  function giveUp(): void {
    broken = true
    ready.length = 0
    queued = 0
    filling = undefined
    used = 0
    settle()
  }

  function settle(): void {
    const waiting = drained
    drained = []
    for (const resolve of waiting) resolve()
  }

  /** At exit: what is queued, written at once. */
  function flushSync(): void {
    if (broken) return
    seal()
    // A write in flight is the thread pool's: it is let be, and what follows it written now.
    if (writing) ready.shift()
    const until = Date.now() + FLUSH_WAIT_MS
    while (ready.length > 0) {
      const chunk = ready[0] as Buffer
      try {
        wrote(chunk, io.writeSync(io.fd, chunk, 0, chunk.length))
      } catch (error) {
        // A full non-blocking pipe: wait for its reader, a little at a time, within the bound.
        if (!busy(error) || Date.now() > until) return
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10)
      }
    }
  }

  /** Resolves once every queued line has been written (or stderr is gone, or after 3 s). */
  function flush(): Promise<void> {
    seal()
    if (broken || (ready.length === 0 && !writing)) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, FLUSH_WAIT_MS)
      timer.unref()
      drained.push(() => {
        clearTimeout(timer)
        resolve()
      })
      writeNext()
    })
  }

  return { writeLine, flush, flushSync }
}

const stderr = lineWriter({ write: fsWrite, writeSync: fsWriteSync, fd: 2 })
let hooked = false

/** Queues one line (a newline is added) for stderr. */
export function writeStderrLine(line: string): void {
  if (!hooked) {
    hooked = true
    process.on('exit', stderr.flushSync)
  }
  stderr.writeLine(line)
}

/** Resolves once every queued line has been written (or stderr is gone, or after 3 s). */
export const flushLogs = (): Promise<void> => stderr.flush()
