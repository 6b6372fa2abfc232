import { setFlagsFromString } from 'node:v8'

/**
 * The garbage-collection policy of the `partner-sandbox` process (docs/retention.md), two V8
 * flags set once it is serving:
 *
 * - Heap growth. After each full collection V8 lets the heap grow by a factor it picks from
 *   the allocation rate: under a steady load on a machine with a lot of memory it picks up to
 *   4x what is live, so a sandbox holding 50 MB of data sat at 400 MB and climbed with every
 *   user added. The CLI asks for at most 50% over the live data instead: about 150 MB less
 *   under the soak's load, for about 5% more CPU per request (more, smaller collections).
 * - No allocation-site pretenuring. V8 watches which places in the code make objects that
 *   outlive a young-generation collection and, past a survival rate, makes that place's
 *   objects in the old generation from then on. Under load the request path trips it: the
 *   journal keeps each request's entry for thousands of requests, so the places that make a
 *   request's objects look long-lived, and from then on objects that die within the request
 *   fill the old generation: 4-16 full collections in 8 s of `GET /partner/me` instead of
 *   1-3, and up to 30% fewer requests served. Whether it trips is luck of timing, process by
 *   process, which made two starts of one build differ by 20% in throughput. Off, every
 *   process runs as the lucky ones did (docs/performance.md).
 *
 * Only the CLI does this: a sandbox started in-process (`startSandbox`) leaves its host's V8
 * settings alone.
 */
const HEAP_GROWING_PERCENT = 50

/** The V8 flags to set: each unless node was started with that setting of its own. */
export function heapPolicyFlags(execArgv: readonly string[]): string[] {
  const given = (pattern: RegExp) => execArgv.some((arg) => pattern.test(arg))
  const flags: string[] = []
  if (!given(/^--heap[-_]growing[-_]percent(=|$)/))
    flags.push(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
  if (!given(/^--(no[-_])?allocation[-_]site[-_]pretenuring(=|$)/))
    flags.push('--no-allocation-site-pretenuring')
  return flags
}

/** Applies the policy to this process: V8 reads both flags as it collects, from then on. */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv): void {
  for (const flag of heapPolicyFlags(execArgv)) setFlagsFromString(flag)
}
