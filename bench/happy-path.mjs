// Happy-path flows per second over HTTP (bench/flow.mjs: 9 requests each, every answer
// checked). The sandbox is the CLI with default flags (startSandboxCli) and the load
// generator another process (bench/clients/flows.mjs), so the figure is the sandbox's.
import { join } from 'node:path'
import {
  fmt,
  isMain,
  killAllChildren,
  killChild,
  percentile,
  printTable,
  root,
  spawnNode,
  startSandboxCli,
  verdict,
  waitForStdout,
} from './lib.mjs'

const WORKERS = Number(process.env.BENCH_FLOW_WORKERS ?? 16)
const SECONDS = Number(process.env.BENCH_FLOW_SECONDS ?? 8)
const TARGET = 200

/**
 * Runs the load generator against `url` (or replicas' URLs, spread round-robin) for SECONDS;
 * answers its result, flows/s, and the failed flows with a 5xx.
 */
export async function flowsAgainst(url) {
  const client = spawnNode([join(root, 'bench', 'clients', 'flows.mjs'), ...[url].flat()], {
    env: { BENCH_FLOW_WORKERS: String(WORKERS), BENCH_FLOW_SECONDS: String(SECONDS) },
  })
  // Up to the line's end: on a fast machine the line (every flow's latency) is longer than
  // one read of the pipe, and a match on its first part would cut the JSON.
  const { match } = await waitForStdout(client, /^RESULT (.+)\n/m, (SECONDS + 60) * 1000)
  const result = JSON.parse(match[1])
  const failed5xx = Object.entries(result.failed ?? {})
    .filter(([status]) => Math.floor(Number(status) / 100) === 5)
    .reduce((n, [, count]) => n + count, 0)
  return { result, rate: result.flows / result.seconds, failed5xx }
}

/** "none", or the failed flows by status: "503 x2, error x1". */
export const fmtFailed = (failed = {}) =>
  Object.entries(failed)
    .map(([status, count]) => `${status} x${count}`)
    .join(', ') || 'none'

export async function run() {
  const sandbox = await startSandboxCli()
  try {
    const { result, rate, failed5xx } = await flowsAgainst(sandbox.url)
    const pass = rate >= TARGET && failed5xx === 0
    const latencies = result.latencies.sort((a, b) => a - b)
    printTable(
      `Happy-path flows over HTTP (9 requests each, ${WORKERS} at a time, ${SECONDS} s; the CLI with default flags and the load generator each a child process)`,
      ['flows', 'seconds', 'flows/s', 'requests/s', 'p50 flow ms', 'p99 flow ms'],
      [
        [
          fmt(result.flows),
          fmt(result.seconds, 2),
          fmt(rate),
          fmt(rate * 9),
          fmt(percentile(latencies, 50)),
          fmt(percentile(latencies, 99)),
        ],
      ],
      [
        `flows/s ${fmt(rate)} (target >= ${TARGET}, no 5xx); failed flows: ${fmtFailed(result.failed)}   ${verdict(pass)}`,
        ...(result.firstFailures ?? []).map((text) => `failure: ${text}`),
      ],
    )
    return {
      rate,
      flows: result.flows,
      seconds: result.seconds,
      failed: result.failed,
      target: TARGET,
      pass,
    }
  } finally {
    await killChild(sandbox.child)
    await killAllChildren()
  }
}

if (isMain(import.meta.url)) await run()
