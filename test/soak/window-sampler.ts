import { countRows } from './data-rows.js'
import { cpuSeconds, rssMb } from './proc-stats.js'

/**
 * The soak's windows: at each window's end, the requests answered and the CPU the sandbox
 * used in it, then (after a full collection in the sandbox, when one is asked for) its RSS
 * and stored rows. Throughput is per CPU second of the sandbox process: on a shared machine
 * other jobs take the CPU away unevenly, while what a request costs the sandbox is what grows
 * if a request scans history.
 */

export interface SoakWindow {
  second: number
  requests: number
  perSecond: number
  /** Requests per CPU second of the sandbox: what a request costs, whatever else runs. */
  perCpuSecond: number
  /** CPU seconds the sandbox used in the window (so several windows add up exactly). */
  cpuSeconds: number
  /** After the window's collection (with `collectGarbage`). */
  rssMb: number
  /** Rows stored at the window's end (with `dataFile`). */
  rows?: number
  /** Logins asked for since the start, each a message in the inbox (it keeps the last 5,000). */
  logins: number
}

export interface SamplerOptions {
  /** The sandbox's process id, to read its CPU time and RSS from /proc. */
  pid: number
  seconds: number
  until?: (windows: SoakWindow[]) => boolean
  maxSeconds?: number
  windowSeconds: number
  dataFile?: string
  collectGarbage?: () => Promise<void>
}

/**
 * Samples a window every `windowSeconds` from `started` until `seconds` have passed and
 * `until` holds, or `maxSeconds` have passed, or `stopped()`, into `windows`. `takeRequests`
 * answers the requests counted since it was last called. A collection's own CPU time and the
 * requests answered while it runs count in no window: each window is measured from the end
 * of the previous window's collection.
 */
export async function sampleWindows(
  options: SamplerOptions,
  windows: SoakWindow[],
  started: number,
  takeRequests: () => number,
  logins: () => number,
  stopped: () => boolean,
): Promise<void> {
  let windowStart = started
  let cpu = cpuSeconds(options.pid)
  takeRequests()
  const most = Math.max(options.seconds, options.maxSeconds ?? 0)
  for (let end = options.windowSeconds; end <= most; end += options.windowSeconds) {
    await new Promise((resolve) => setTimeout(resolve, started + end * 1000 - Date.now()))
    if (stopped()) return
    const requests = takeRequests()
    const used = cpuSeconds(options.pid) - cpu
    const seconds = (Date.now() - windowStart) / 1000
    await options.collectGarbage?.()
    windows.push({
      second: end,
      requests,
      perSecond: Math.round(requests / seconds),
      perCpuSecond: used > 0 ? Math.round(requests / used) : 0,
      cpuSeconds: Math.round(used * 1000) / 1000,
      rssMb: rssMb(options.pid),
      ...(options.dataFile ? { rows: countRows(options.dataFile) } : {}),
      logins: logins(),
    })
    if (end + options.windowSeconds > options.seconds && (options.until?.(windows) ?? true)) return
    takeRequests()
    cpu = cpuSeconds(options.pid)
    windowStart = Date.now()
  }
}
