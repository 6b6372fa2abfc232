import { afterAll, describe, expect, it } from 'vitest'
import { stopCliProcesses } from '../cli-process.js'
import { startSoakSandbox } from './sandbox-process.js'
import { runSoak, type SoakOptions, type SoakReport, type SoakWindow } from './workload.js'

/**
 * Two bounded soaks of the CLI with a data file, under load from this process
 * (docs/retention.md); neither may answer a 5xx.
 *
 * History: four users, each with its own worker, pile up thousands of transactions, codes and
 * sessions (nothing ages out: the clock stands still). A request must cost what it cost in
 * the 20-30 s window (requests per CPU second of the sandbox at least 85% of it in the last
 * window), and memory may grow by at most 1.2 KB per stored row added from then on.
 *
 * Steady state: fixed users, the sandbox clock jumping 10 days every 4 seconds so every
 * retention window passes several times: after a warm-up, RSS may grow at most 25%.
 *
 * Throughput is counted per CPU second of the sandbox process, not per wall-clock second:
 * on a shared CI machine other jobs take the CPU away unevenly, while what a request costs
 * the sandbox is what grows if a request scans history. RSS is read after a full collection
 * asked of the sandbox at each window's end (sandbox-process.ts), so it counts what the
 * stored rows hold, not the garbage a loaded machine left waiting when the window ended; the
 * collection's own CPU time is in no window. A virtual machine's CPU itself can run slower
 * for a while (a neighbour): each window also measures how fast the machine ran a fixed piece
 * of work (machine-speed.ts), and the history run compares requests per CPU second at the
 * machine's speed. SOAK_SECONDS scales both runs.
 */

const SCALE = Number(process.env.SOAK_SECONDS ?? 60) / 60
const HISTORY_SECONDS = Math.round(70 * SCALE)
const STEADY_SECONDS = Math.round(60 * SCALE)
const KB_PER_ROW = 1.2
/**
 * The request journal keeps the last 5,000 requests and the inbox the last 5,000 messages
 * (one per login): until both are full, and while the code warms up, memory grows with each
 * request whatever the rows. A quiet machine is past that within 30 s; on a busy one the
 * history run goes on (up to 4x its length) until it is, and then for as many windows as a
 * quiet machine measures, so RSS per row is read over the same stretch of history.
 */
const FULL_AFTER_LOGINS = 5_000
const MEASURED_WINDOWS = 4
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
    `${HISTORY_SECONDS} s of history piling up on a few users: per-request cost flat, RSS <= ${KB_PER_ROW} KB per row`,
    async () => {
      const report = await soaked(
        {
          seconds: HISTORY_SECONDS,
          until: measuredEnough,
          maxSeconds: HISTORY_MAX_SECONDS,
          windowSeconds: 10,
          workers: 4,
          usersPerWorker: 1,
          loginsPerRound: 3,
          purchases: 3,
          listLimit: 50,
        },
        true,
      )
      // The first window that starts with the journal and the inbox full, as the last one
      // does (each full ring has a row to drop per request or login): the 20-30 s window on
      // a quiet machine, later on a busy one. In a run scaled below a minute, the middle one.
      const startsFull = report.windows.find(
        (w, i) =>
          w.second >= 30 &&
          (report.windows[i - 1]?.logins ?? 0) >= FULL_AFTER_LOGINS &&
          w !== report.windows.at(-1),
      )
      const reference = (startsFull ?? report.windows[report.windows.length >> 1]) as SoakWindow
      const last = report.windows.at(-1) as SoakWindow
      expect(last.second).toBeGreaterThan(reference.second)
      // The machine's own speed in each window (machine-speed.ts) taken out of the ratio.
      const machine = last.machineSpeed / reference.machineSpeed
      const cost = last.perCpuSecond / machine
      const from = rssFrom(report.windows)
      const rows = from ? (last.rows as number) - (from.rows as number) : 0
      const kbPerRow = from ? kbPerRowAdded(report.windows.slice(report.windows.indexOf(from))) : 0
      console.log(
        `soak (history): requests per CPU s ${reference.perCpuSecond} at ${reference.second} s -> ` +
          `${last.perCpuSecond} at ${last.second} s (x${ratio(last.perCpuSecond, reference.perCpuSecond)}; ` +
          `the machine x${ratio(last.machineSpeed, reference.machineSpeed)}, so x${ratio(cost, reference.perCpuSecond)} at its speed); ` +
          `RSS ${from?.rssMb} at ${from?.second} s -> ${last.rssMb} MB for ${rows} rows added ` +
          `(${kbPerRow.toFixed(2)} KB per row, the slope over those windows; ${last.rows} rows stored), ` +
          `${report.requests} requests`,
      )
      expect(
        from,
        `fewer than ${FULL_AFTER_LOGINS} logins in ${last.second} s: the machine is too busy to measure memory per row`,
      ).toBeDefined()
      // Thousands of rows, or the figures would say nothing about a user's history.
      expect(rows).toBeGreaterThan(4_000)
      expect(reference.machineSpeed).toBeGreaterThan(0)
      expect(cost).toBeGreaterThanOrEqual(reference.perCpuSecond * 0.85)
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
