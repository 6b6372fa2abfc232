import { afterAll, describe, expect, it } from 'vitest'
import { stopCliProcesses } from '../cli-process.js'
import { startSoakSandbox } from './sandbox-process.js'
import { runSoak, type SoakOptions, type SoakReport, type SoakWindow } from './workload.js'

/**
 * Two bounded soaks of the CLI with a data file, under load from this process
 * (docs/retention.md); neither may answer a 5xx or an answer the workload did not expect.
 *
 * History: four users, each with its own worker, pile up thousands of transactions, codes and
 * sessions (nothing ages out: the clock stands still). Memory may grow by at most 1.0 KB per
 * stored row added once the journal and the inbox are full. What a request costs the sandbox
 * (requests per CPU second) at each end of the run is printed, not asserted: it is how fast,
 * which a loaded virtual machine moves by a third between windows with nothing stored
 * differently. That a user's history does not slow that user down is bench/history.mjs's
 * target (PASS or MISS, the same requests with 1x to 1,000x the history, in interleaved
 * rounds); docs/retention.md says how each request reads only its page.
 *
 * Steady state: fixed users, the sandbox clock jumping 10 days every 4 seconds so every
 * retention window passes several times: after a warm-up, RSS may grow at most 25%.
 *
 * RSS is read after a full collection asked of the sandbox at each window's end
 * (sandbox-process.ts), so it counts what the stored rows hold, not the garbage a loaded
 * machine left waiting when the window ended. SOAK_SECONDS scales both runs.
 */

const SCALE = Number(process.env.SOAK_SECONDS ?? 60) / 60
const HISTORY_SECONDS = Math.round(70 * SCALE)
const HISTORY_WINDOW_SECONDS = 10
const STEADY_SECONDS = Math.round(60 * SCALE)
/**
 * Issue 40's target, which `npm run bench` reports too (bench/rss-per-row.mjs). Before the
 * indexes stopped keeping a map from id to place per key (store/ordered-ids.ts) this run read
 * 0.62-1.04 KB on a loaded 2-core machine (0.94 and 0.95 in the benchmark); since, 0.47-0.63
 * (0.59-0.60 in the benchmark), the spread of a busy machine included.
 */
const KB_PER_ROW = 1.0
/**
 * The request journal keeps the last 5,000 requests and the inbox the last 5,000 messages
 * (one per login): until both are full, and while the code warms up, memory grows with each
 * request whatever the rows. A quiet machine is past that within 30 s; on a busy one the
 * history run goes on (up to 4x its length) until it is, and then for as many windows as a
 * quiet machine measures, so RSS per row is read over the same stretch of history.
 */
const FULL_AFTER_LOGINS = 5_000
const MEASURED_WINDOWS = 4
/** Windows read together at each end of the history run for the printed cost. */
const COMPARED_WINDOWS = 3
/** Rows added over the measured windows, at least (see measuredEnough). */
const MEASURED_ROWS = Math.round(20_000 * SCALE)
const HISTORY_MAX_SECONDS = HISTORY_SECONDS * 4

afterAll(stopCliProcesses)

const ratio = (a: number, b: number) => (a / b).toFixed(2)

/**
 * KB of RSS per stored row added: the least-squares slope of RSS (after each window's full
 * collection) over rows across the windows given, so no single window decides it.
 */
function kbPerRowAdded(windows: SoakWindow[]): number {
  const xs = windows.map((w) => w.rows as number)
  const ys = windows.map((w) => w.rssMb * 1024)
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length
  const [mx, my] = [mean(xs), mean(ys)]
  let covariance = 0
  let variance = 0
  for (let i = 0; i < xs.length; i++) {
    covariance += ((xs[i] as number) - mx) * ((ys[i] as number) - my)
    variance += ((xs[i] as number) - mx) ** 2
  }
  return covariance / variance
}

/** The first window from which RSS per row is measured (see FULL_AFTER_LOGINS). */
const rssFrom = (windows: SoakWindow[]) =>
  windows.find((w) => w.second >= 30 && w.logins >= FULL_AFTER_LOGINS)

/**
 * Whether the history run has measured enough: MEASURED_WINDOWS after rssFrom, and
 * MEASURED_ROWS added since. RSS moves by a few MB whatever is stored (pages the allocator
 * keeps or gives back), so a slope over few rows is mostly that: on a loaded machine, where
 * fewer rows are added a second, the run goes on until enough are (a quiet run adds ~40,000).
 */
function measuredEnough(windows: SoakWindow[]): boolean {
  const from = rssFrom(windows)
  const last = windows.at(-1) as SoakWindow
  return (
    from !== undefined &&
    windows.length - windows.indexOf(from) > MEASURED_WINDOWS &&
    (last.rows as number) - (from.rows as number) > MEASURED_ROWS
  )
}

/** Requests per CPU second of the sandbox over `windows` together. */
function costOver(windows: SoakWindow[]): number {
  const sum = (f: (w: SoakWindow) => number) => windows.reduce((total, w) => total + f(w), 0)
  return sum((w) => w.requests) / sum((w) => w.cpuSeconds)
}

/** The CLI under `options`' workload (with `countRows`, each window counts the stored rows). */
async function soaked(
  options: Omit<SoakOptions, 'base' | 'pid' | 'dataFile' | 'collectGarbage'>,
  countRows = false,
): Promise<SoakReport> {
  const sandbox = await startSoakSandbox()
  try {
    const report = await runSoak({
      base: sandbox.base,
      pid: sandbox.child.pid as number,
      ...options,
      dataFile: countRows ? sandbox.dataFile : undefined,
      collectGarbage: sandbox.collectGarbage,
    })
    console.table(report.windows)
    expect(report.serverErrors).toEqual([])
    expect(report.unexpected).toEqual([])
    return report
  } finally {
    await sandbox.stop()
  }
}

describe('soak', () => {
  it(
    `${HISTORY_SECONDS} s of history piling up on a few users: RSS <= ${KB_PER_ROW} KB per row`,
    async () => {
      const report = await soaked(
        {
          seconds: HISTORY_SECONDS,
          until: measuredEnough,
          maxSeconds: HISTORY_MAX_SECONDS,
          windowSeconds: HISTORY_WINDOW_SECONDS,
          workers: 4,
          usersPerWorker: 1,
          loginsPerRound: 3,
          purchases: 3,
          listLimit: 50,
        },
        true,
      )
      const { windows } = report
      const last = windows.at(-1) as SoakWindow
      const from = rssFrom(windows)
      const rows = from ? (last.rows as number) - (from.rows as number) : 0
      const kbPerRow = from ? kbPerRowAdded(windows.slice(windows.indexOf(from))) : 0
      // Printed for a person reading the run (see above): from the first window with the
      // journal and the inbox full (the middle one in a run scaled below a minute), and the last.
      const at = from ? windows.indexOf(from) : windows.length >> 1
      const firsts = windows.slice(at, at + COMPARED_WINDOWS)
      // The last ones after those (the last window alone in a run too short for both).
      const after = windows.slice(
        Math.max(at + COMPARED_WINDOWS, windows.length - COMPARED_WINDOWS),
      )
      const lasts = after.length > 0 ? after : windows.slice(-1)
      const [before, end] = [costOver(firsts), costOver(lasts)]
      const span = (ws: SoakWindow[]) =>
        `${(ws[0] as SoakWindow).second - HISTORY_WINDOW_SECONDS}-${ws.at(-1)?.second} s`
      console.log(
        `soak (history): requests per CPU s ${before.toFixed(0)} in ${span(firsts)} -> ` +
          `${end.toFixed(0)} in ${span(lasts)} (x${ratio(end, before)}; not asserted, see ` +
          `bench/history.mjs); RSS ${from?.rssMb} at ${from?.second} s -> ${last.rssMb} MB for ` +
          `${rows} rows added (${kbPerRow.toFixed(2)} KB per row, the slope over those windows; ` +
          `${last.rows} rows stored), ${report.requests} requests`,
      )
      expect(
        from,
        `fewer than ${FULL_AFTER_LOGINS} logins in ${last.second} s: the machine is too busy to measure memory per row`,
      ).toBeDefined()
      // Thousands of rows, or the figures would say nothing about a user's history.
      expect(rows).toBeGreaterThan(4_000)
      expect(kbPerRow).toBeLessThanOrEqual(KB_PER_ROW)
    },
    (HISTORY_MAX_SECONDS + 60) * 1000,
  )

  it(
    `${STEADY_SECONDS} s of steady traffic with retention running: RSS stays within x1.25`,
    async () => {
      const report = await soaked({
        seconds: STEADY_SECONDS,
        windowSeconds: 8,
        workers: 6,
        usersPerWorker: 3,
        clockStep: '10d',
        clockEverySeconds: 4,
      })
      expect(report.webhooksReceived).toBeGreaterThan(0)
      const warmup = Math.max(16, Math.round(STEADY_SECONDS / 5))
      const measured = report.windows.filter((w) => w.second > warmup)
      expect(measured.length).toBeGreaterThanOrEqual(3)
      const first = measured[0] as SoakWindow
      const last = measured.at(-1) as SoakWindow
      const peakRss = Math.max(...measured.map((w) => w.rssMb))
      console.log(
        `soak (steady): RSS ${first.rssMb} -> peak ${peakRss} MB (x${ratio(peakRss, first.rssMb)}), ` +
          `requests per CPU s ${first.perCpuSecond} -> ${last.perCpuSecond} ` +
          `(x${ratio(last.perCpuSecond, first.perCpuSecond)}), ${report.requests} requests`,
      )
      expect(peakRss).toBeLessThanOrEqual(first.rssMb * 1.25)
    },
    (STEADY_SECONDS + 60) * 1000,
  )
})
