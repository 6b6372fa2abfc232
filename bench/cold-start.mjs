// Cold start, side by side with Prism: from spawning the process to the first 200 of
// GET /api/v1/partner/me. The sandbox is `node dist/bundle/cli.js --port 0`; that first request
// includes the scrypt check of the secret. Prism is `prism mock` on the sandbox's own
// /openapi.json. Runs alternate sandbox and Prism; the ratio is taken per pair.
// Also the restart from a data file holding 100k users (built by bench/data.mjs) to first 200.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDataFile } from './data.mjs'
import {
  fmt,
  fmtRatio,
  isMain,
  killAllChildren,
  median,
  printTable,
  ratios,
  root,
  SANDBOX_BANNER_URL,
  spread,
  timeToFirst200,
  verdict,
} from './lib.mjs'
import { prismArgs } from './prism.mjs'

const RUNS = Math.max(3, Number(process.env.BENCH_COLD_RUNS ?? 5))
export const RESTART_RUNS = Math.max(3, Number(process.env.BENCH_RESTART_RUNS ?? 3))
const LARGE = Number(process.env.BENCH_LARGE_USERS ?? 100_000)
const TARGET_MS = 400
const RESTART_TARGET_MS = 1000
const DEADLINE_MS = 30_000
const PRISM_URL = /listening on (http:\/\/127\.0\.0\.1:\d+)/

const once = (args, pattern) => timeToFirst200(args, pattern, DEADLINE_MS)

/** `build`'s CLI bundle with default flags on a free port: another build's, when comparing two. */
const cli = (extra = [], build = root) => [
  join(build, 'dist', 'bundle', 'cli.js'),
  '--port',
  '0',
  ...extra,
]

/** Milliseconds from spawning `build`'s CLI on the data file `file` to its first 200. */
export const restartOnce = (file, build) => once(cli(['--data', file], build), SANDBOX_BANNER_URL)

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-restart-'))
  try {
    const sandbox = []
    const prism = []
    for (let i = 0; i < RUNS; i++) {
      sandbox.push(await once(cli(), SANDBOX_BANNER_URL))
      prism.push(await once(await prismArgs(), PRISM_URL))
    }
    const file = join(dir, 'data.json')
    await writeDataFile(file, LARGE)
    const restart = []
    for (let i = 0; i < RESTART_RUNS; i++) restart.push(await restartOnce(file))

    const cold = { median: median(sandbox), max: Math.max(...sandbox) }
    const vsPrism = spread(ratios(sandbox, prism))
    const restartMedian = median(restart)
    printTable(
      `Start to first authenticated 200 of GET /partner/me (${RUNS} alternating runs; restart: ${RESTART_RUNS} runs)`,
      ['process', 'median ms', 'max ms', ...Array.from({ length: RUNS }, (_, i) => `run ${i + 1}`)],
      [
        [
          'sandbox: node dist/bundle/cli.js',
          fmt(cold.median),
          fmt(cold.max),
          ...sandbox.map((v) => fmt(v)),
        ],
        [
          'Prism: prism mock openapi.json',
          fmt(median(prism)),
          fmt(Math.max(...prism)),
          ...prism.map((v) => fmt(v)),
        ],
        [
          `sandbox --data (${fmt(LARGE)} users)`,
          fmt(restartMedian),
          fmt(Math.max(...restart)),
          ...restart.map((v) => fmt(v)),
        ],
      ],
      [
        `cold start: median ${fmt(cold.median)} ms (target < ${TARGET_MS} ms)  ${verdict(cold.median < TARGET_MS)}; sandbox / Prism time ${fmtRatio(vsPrism)}`,
        `restart from a ${fmt(LARGE)}-user data file: median ${fmt(restartMedian)} ms (target < ${RESTART_TARGET_MS} ms)  ${verdict(restartMedian < RESTART_TARGET_MS)}`,
      ],
    )
    return {
      sandboxMs: sandbox,
      prismMs: prism,
      median: cold.median,
      max: cold.max,
      target: TARGET_MS,
      pass: cold.median < TARGET_MS,
      vsPrism,
      restartMs: restart,
      restartMedian,
      restartTarget: RESTART_TARGET_MS,
      restartPass: restartMedian < RESTART_TARGET_MS,
    }
  } finally {
    await killAllChildren()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (isMain(import.meta.url)) await run()
