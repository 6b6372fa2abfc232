import { statSync } from 'node:fs'
import { startSoakSandbox } from './sandbox-process.js'
import { runSoak } from './workload.js'

/**
 * A soak by hand: `npx tsx test/soak/run.ts` (SOAK_SECONDS, SOAK_WORKERS, SOAK_CLOCK_STEP,
 * SOAK_NODE_ARGS). Prints each window's throughput and RSS and the data file's size.
 */
const seconds = Number(process.env.SOAK_SECONDS ?? 120)
const sandbox = await startSoakSandbox()
try {
  const report = await runSoak({
    base: sandbox.base,
    pid: sandbox.child.pid as number,
    seconds,
    windowSeconds: Number(process.env.SOAK_WINDOW ?? 10),
    workers: Number(process.env.SOAK_WORKERS ?? 8),
    clockStep: process.env.SOAK_CLOCK_STEP || undefined,
    collectGarbage: sandbox.collectGarbage,
  })
  console.table(report.windows)
  console.log(
    `requests ${report.requests}, 5xx ${report.serverErrors.length}, unexpected ${report.unexpected.length}, webhooks received ${report.webhooksReceived}, data file ${(statSync(sandbox.dataFile).size / 1e6).toFixed(1)} MB`,
  )
  for (const line of [...report.serverErrors, ...report.unexpected].slice(0, 10)) console.log(line)
  const snapshot = (await (await fetch(`${sandbox.base}/_sandbox/snapshot`)).json()) as {
    collections: Record<string, object>
  }
  const rows = Object.entries(snapshot.collections as Record<string, object>).map(([name, r]) => ({
    name,
    rows: Object.keys(r).length,
    kb: Math.round(JSON.stringify(r).length / 1024),
  }))
  console.table(rows.filter((r) => r.rows > 0))
} finally {
  await sandbox.stop()
}
