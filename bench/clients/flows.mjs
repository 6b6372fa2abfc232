// The load generator of the flows benchmark, in its own process so that it never shares an
// event loop (or a CPU core's time slice) with the sandbox. Runs WORKERS flows at a time
// against argv[2] (or, given several URLs, replicas of one sandbox: each request to the next,
// as through a round-robin load balancer) for SECONDS, then prints one line `RESULT <json>`.
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
        await flow(bases, tag())
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
process.stdout.write(
  `RESULT ${JSON.stringify({ flows: latencies.length, seconds, latencies, failed, firstFailures })}\n`,
)
