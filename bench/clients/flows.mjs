// The load generator of the flows benchmark, in its own process so that it never shares an
// event loop (or a CPU core's time slice) with the sandbox. Runs WORKERS flows at a time
// against argv[2] for SECONDS, then prints one line `RESULT <json>`.
import { flow } from '../flow.mjs'

const base = process.argv[2]
const WORKERS = Number(process.env.BENCH_FLOW_WORKERS ?? 16)
const SECONDS = Number(process.env.BENCH_FLOW_SECONDS ?? 8)

let counter = 0
const tag = () => `${process.pid}.${counter++}`
await flow(base, tag()) // warm-up, and a check that the flow works at all
const latencies = []
const deadline = Date.now() + SECONDS * 1000
const started = performance.now()
await Promise.all(
  Array.from({ length: WORKERS }, async () => {
    while (Date.now() < deadline) {
      const t = performance.now()
      await flow(base, tag())
      latencies.push(performance.now() - t)
    }
  }),
)
const seconds = (performance.now() - started) / 1000
process.stdout.write(`RESULT ${JSON.stringify({ flows: latencies.length, seconds, latencies })}\n`)
