import { setFlagsFromString } from 'node:v8'

/**
 * The garbage-collection policy of the `partner-sandbox` process (docs/retention.md). After
 * each full collection V8 lets the heap grow by a factor it picks from the allocation rate:
 * under a steady load on a machine with a lot of memory it picks up to 4x what is live, so a
 * sandbox holding 50 MB of data sat at 400 MB and climbed with every user added. The CLI asks
 * for at most 50% over the live data instead: about 150 MB less under the soak's load, for
 * about 5% more CPU per request (more, smaller collections). Only the CLI does this: a
 * sandbox started in-process (`startSandbox`) leaves its host's V8 settings alone.
 */
const HEAP_GROWING_PERCENT = 50

/** The V8 flag to set, or undefined when node was started with its own growing percent. */
export function heapPolicyFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return undefined
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`
}

/** Applies the policy to this process (V8 reads the flag at each full collection). */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv): void {
  const flag = heapPolicyFlag(execArgv)
  if (flag) setFlagsFromString(flag)
}
