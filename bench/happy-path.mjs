// The spec's happy path as a partner's suite meets it (bench/flow.mjs: 9 requests each, every
// answer checked): flows/s with 16 clients at a time, and the p50 and p99 of each of its
// requests with 1 client and with 16. The sandbox is the CLI with default flags
// (startSandboxCli) and the load generator another process (bench/clients/flows.mjs), so the
// figures are the sandbox's. Each run has a new sandbox process.
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
/** The concurrencies each request's latency is taken at: one client, and WORKERS. */
export const CLIENTS = [1, WORKERS]
/**
 * Each request's p99, in ms, by concurrency: what a partner's suite waits for. One client
 * alone should never wait long enough to notice; sixteen share the sandbox's one event loop.
 */
export const P99_TARGET_MS = { 1: 10, [WORKERS]: 50 }
export const p99Target = (clients) => P99_TARGET_MS[clients]

/**
 * Runs the load generator against `url` (or replicas' URLs, spread round-robin) for SECONDS
 * with `workers` flows at a time; answers its result, flows/s, and the failed flows with a 5xx.
 */
export async function flowsAgainst(url, workers = WORKERS) {
  const client = spawnNode([join(root, 'bench', 'clients', 'flows.mjs'), ...[url].flat()], {
    env: { BENCH_FLOW_WORKERS: String(workers), BENCH_FLOW_SECONDS: String(SECONDS) },
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

/** One run of `clients` flows at a time against a new sandbox process. */
export async function measureFlows(clients, build = root) {
  const sandbox = await startSandboxCli([], build)
  try {
    return await flowsAgainst(sandbox.url, clients)
  } finally {
    await killChild(sandbox.child)
  }
}

export async function run() {
  try {
    const runs = {}
    for (const clients of CLIENTS) runs[clients] = await measureFlows(clients)
    const { result, rate, failed5xx } = runs[WORKERS]
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
    const requests = result.steps.map(({ step }) => {
      const at = Object.fromEntries(
        CLIENTS.map((clients) => {
          const found = runs[clients].result.steps.find((s) => s.step === step)
          const target = p99Target(clients)
          return [clients, { p50: found?.p50, p99: found?.p99, count: found?.count ?? 0, target }]
        }),
      )
      const pass = CLIENTS.every((c) => at[c].p99 !== undefined && at[c].p99 <= at[c].target)
      return { step, at, pass }
    })
    printTable(
      `Each request of the happy path, ms (one client, then ${WORKERS} at a time; ${SECONDS} s each, a new sandbox process each)`,
      [
        'request',
        ...CLIENTS.flatMap((c) => [`p50 @${c}`, `p99 @${c}`, `p99 target @${c}`]),
        'verdict',
      ],
      requests.map((r) => [
        r.step,
        ...CLIENTS.flatMap((c) => [
          fmt(r.at[c].p50, 1),
          fmt(r.at[c].p99, 1),
          `<= ${r.at[c].target}`,
        ]),
        verdict(r.pass),
      ]),
      [
        `requests timed: ${CLIENTS.map((c) => `${fmt(runs[c].result.steps.reduce((n, s) => n + s.count, 0))} @${c}`).join(', ')}`,
      ],
    )
    return {
      rate,
      flows: result.flows,
      seconds: result.seconds,
      failed: result.failed,
      target: TARGET,
      pass,
      clients: CLIENTS,
      requests,
    }
  } finally {
    await killAllChildren()
  }
}

if (isMain(import.meta.url)) await run()
