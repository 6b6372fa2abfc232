// The load generator of the flows benchmark, in its own process so that it never shares an
// event loop (or a CPU core's time slice) with the sandbox. Runs WORKERS flows at a time
// against argv[2] (or, given several URLs, replicas of one sandbox: each request to the next,
// as through a round-robin load balancer) for SECONDS, then prints one line `RESULT <json>`:
// the flows done, every flow's latency, and each request's p50 and p99 (by step, in order).
// A flow that gets an error answer is counted by its status (a 5xx is the sandbox's failure
// under load, reported, not hidden) and the worker starts the next one.
import { flow } from '../flow.mjs'

const bases = process.argv.slice(2)
const WORKERS = Number(process.env.BENCH_FLOW_WORKERS ?? 16)
const SECONDS = Number(process.env.BENCH_FLOW_SECONDS ?? 8)

let counter = 0
const tag = () => `${process.pid}.${counter++}`
await flow(bases, tag()) // warm-up, and a check that the flow works at all
const latencies = []
/** Every answered request's time in ms, by step (`stepOf`), in the flow's order. */
const byStep = new Map()
const timed = (step, ms) => {
  const list = byStep.get(step) ?? []
  list.push(ms)
  byStep.set(step, list)
}
/** Percentile (0..100) of a sorted list. */
const at = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
/** Failed flows by the status that ended them ('error': no answer, or a wrong end state). */
const failed = {}
const firstFailures = []
const deadline = Date.now() + SECONDS * 1000
const started = performance.now()
await Promise.all(
  Array.from({ length: WORKERS }, async () => {
    while (Date.now() < deadline) {
      const t = performance.now()
      try {
        await flow(bases, tag(), timed)
        latencies.push(performance.now() - t)
      } catch (error) {
        const status = error.status ?? 'error'
        failed[status] = (failed[status] ?? 0) + 1
        if (firstFailures.length < 3) firstFailures.push(String(error.message).slice(0, 300))
      }
    }
  }),
)
const seconds = (performance.now() - started) / 1000
const steps = [...byStep].map(([step, list]) => {
  const sorted = list.sort((a, b) => a - b)
  return { step, count: sorted.length, p50: at(sorted, 50), p99: at(sorted, 99) }
})
process.stdout.write(
  `RESULT ${JSON.stringify({ flows: latencies.length, seconds, latencies, steps, failed, firstFailures })}\n`,
)
