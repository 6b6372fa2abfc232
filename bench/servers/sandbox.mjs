// The sandbox of the write benchmark (http-writes), which needs a hand inside the process
// (memory, event-loop delay, a compaction on demand): started from dist/ as the CLI starts it,
// with the CLI's defaults (request log at `info` on stderr, read by the bench) and its heap
// policy (the CLI's own applyHeapPolicy, from the build's dist/src), rate limiting off. Every
// other benchmark runs the CLI itself (startSandboxCli). BENCH_SANDBOX_OPTIONS (JSON) adds
// options.
// Prints `READY <url>` once listening; exits when stdin (its lifeline to the bench) closes.
// Lines on stdin are commands, each answered with one line of JSON:
// - `STATS`: RSS and heap in bytes; `ELD`: event-loop delay (ms) since the last `ELD RESET`;
// - `COMPACT`: starts a compaction of the data file (not awaited), as a write past the
//   journal threshold would, so the event-loop delay of a compaction under load is measured.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { startSandbox } from '../../dist/bundle/index.js'
import { applyHeapPolicy } from '../../dist/src/cli/heap-policy.js'

const extra = JSON.parse(process.env.BENCH_SANDBOX_OPTIONS ?? '{}')
const sandbox = await startSandbox({ port: 0, rateLimit: 'off', ...extra })
applyHeapPolicy()
const delay = monitorEventLoopDelay({ resolution: 1 })
delay.enable()
process.stdout.write(`READY ${sandbox.url}\n`)

const ms = (ns) => ns / 1e6
const commands = {
  STATS: () => ({ ...process.memoryUsage(), users: sandbox.store.all('users').length }),
  ELD: () => ({
    max: ms(delay.max),
    p50: ms(delay.percentile(50)),
    p99: ms(delay.percentile(99)),
    mean: ms(delay.mean),
  }),
  'ELD RESET': () => {
    delay.reset()
    return {}
  },
  COMPACT: () => {
    const started = performance.now()
    sandbox.store.compact().then(
      () =>
        process.stdout.write(`COMPACTED ${JSON.stringify({ ms: performance.now() - started })}\n`),
      (error) => process.stdout.write(`COMPACTED ${JSON.stringify({ error: String(error) })}\n`),
    )
    return {}
  },
}

const stop = async () => {
  await sandbox.close()
  process.exit(0)
}
createInterface({ input: process.stdin })
  .on('line', (line) => {
    const command = commands[line.trim()]
    if (command) process.stdout.write(`${line.trim().split(' ')[0]} ${JSON.stringify(command())}\n`)
  })
  .on('close', stop)
process.on('SIGTERM', stop)
