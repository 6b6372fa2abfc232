import { afterAll, describe, expect, it } from 'vitest'
import { stopCliProcesses } from '../cli-process.js'
import { startSoakSandbox } from './sandbox-process.js'
import { runSoak } from './workload.js'

/**
 * The bounded soak (docs/retention.md): the CLI with a data file under a mixed workload
 * from this process, the sandbox clock jumping 10 days every 4 seconds so every retention
 * window passes several times. After a warm-up, the sandbox's RSS may grow at most 25%
 * and the last window's throughput must be at least 85% of the first; no 5xx.
 *
 * Throughput is counted per CPU second of the sandbox process, not per wall-clock second:
 * on a shared CI machine other jobs take the CPU away unevenly, while what a request costs
 * the sandbox is what grows if a request scans history. Both figures are printed.
 * SOAK_SECONDS (default 60) makes it longer.
 */

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60)
const WINDOW = 8
const WARMUP = Math.max(16, Math.round(SECONDS / 5))

afterAll(stopCliProcesses)

describe('soak', () => {
  it(
    `${SECONDS} s of mixed load: memory and per-request cost stay flat, no 5xx`,
    async () => {
      const sandbox = await startSoakSandbox()
      try {
        const report = await runSoak({
          base: sandbox.base,
          pid: sandbox.child.pid as number,
          seconds: SECONDS,
          windowSeconds: WINDOW,
          workers: 6,
          clockStep: '10d',
          clockEverySeconds: WINDOW / 2,
        })
        console.table(report.windows)
        expect(report.serverErrors).toEqual([])
        expect(report.unexpected).toEqual([])
        expect(report.webhooksReceived).toBeGreaterThan(0)
        const measured = report.windows.filter((w) => w.second > WARMUP)
        expect(measured.length).toBeGreaterThanOrEqual(3)
        const first = measured[0] as (typeof measured)[number]
        const last = measured.at(-1) as (typeof measured)[number]
        const peakRss = Math.max(...measured.map((w) => w.rssMb))
        console.log(
          `soak: RSS ${first.rssMb} -> peak ${peakRss} MB (x${(peakRss / first.rssMb).toFixed(2)}), ` +
            `requests per CPU s ${first.perCpuSecond} -> ${last.perCpuSecond} ` +
            `(x${(last.perCpuSecond / first.perCpuSecond).toFixed(2)}), ${report.requests} requests`,
        )
        expect(peakRss).toBeLessThanOrEqual(first.rssMb * 1.25)
        expect(last.perCpuSecond).toBeGreaterThanOrEqual(first.perCpuSecond * 0.85)
      } finally {
        await sandbox.stop()
      }
    },
    (SECONDS + 60) * 1000,
  )
})
