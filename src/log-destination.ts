import sonicBoomExports, { type SonicBoomOpts, type SonicBoom as Writer } from 'sonic-boom'

// CommonJS (`module.exports = SonicBoom`) whose types declare an ES default export instead.
const SonicBoom = sonicBoomExports as unknown as new (options: SonicBoomOpts) => Writer

/**
 * Where log lines go when no `onLog` is given: stderr through sonic-boom (pino's writer),
 * under our own formatter. A line costs a string append; the lines queued while one
 * `fs.write` is in flight leave together in the next one, from the thread pool, instead of one
 * synchronous write(2) per request on the event loop (a third of the throughput at `info`).
 * One writer per process: every sandbox in it shares fd 2, and one exit hook writes what is
 * still queued; a sandbox's close() awaits flushLogs(), so the CLI's stop on SIGTERM or
 * SIGINT loses no line.
 */

/** Queued bytes past which new lines are dropped: a reader that stops must not grow the heap. */
const MAX_QUEUED = 16 * 1024 * 1024
/** A stop waits at most this long for a reader that does not read (a full pipe). */
const FLUSH_WAIT_MS = 3_000

let stderr: Writer | undefined
/** Set once stderr is gone (EPIPE when its reader closed): lines are dropped, as before. */
let broken = false

function open(): Writer {
  const boom = new SonicBoom({ fd: 2, minLength: 0, maxLength: MAX_QUEUED })
  boom.on('error', () => {
    broken = true
  })
  process.on('exit', () => {
    if (broken) return
    try {
      boom.flushSync()
    } catch {
      // Nothing is left to tell at exit if stderr refuses the last lines.
    }
  })
  return boom
}

/** Queues one line (a newline is added) for stderr. */
export function writeStderrLine(line: string): void {
  if (broken) return
  stderr ??= open()
  stderr.write(`${line}\n`)
}

/** Resolves once every queued line has been written (or stderr is gone, or after 3 s). */
export function flushLogs(): Promise<void> {
  const boom = stderr
  if (!boom || broken) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FLUSH_WAIT_MS)
    timer.unref()
    boom.flush(() => {
      clearTimeout(timer)
      resolve()
    })
  })
}
