// `npm run bench`: builds dist/ (see package.json), runs every benchmark in sequence, prints a
// summary with PASS or MISS per target, and writes the figures as JSON to bench/results/.
// Missed targets are reported, never fatal; a crash exits non-zero. 127.0.0.1 only.
// `--only postgres` (`npm run bench:postgres`) runs only the PostgreSQL engine's rows, whose
// benchmark prints SKIP when PostgreSQL is not installed; `--only partner` only what a
// partner's suite meets: the authenticated GETs beside bare Hono, the happy path (flows/s,
// each request's p50 and p99 at 1 and 16 clients) and the start to the first 200.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { run as coldStart } from './cold-start.mjs'
import { run as happyPath } from './happy-path.mjs'
import { run as history } from './history.mjs'
import { run as httpThroughput } from './http-throughput.mjs'
import { run as httpWrites } from './http-writes.mjs'
import { run as installedStart } from './installed-start.mjs'
import {
  fmt,
  fmtRatio,
  killAllChildren,
  printChildProblems,
  printTable,
  root,
  verdict,
} from './lib.mjs'
import { run as postgresEngine, summaryRows as postgresRows } from './postgres-engine.mjs'
import { run as rssPerRow } from './rss-per-row.mjs'
import { run as webhookFanout } from './webhook-fanout.mjs'

const started = performance.now()
const machine = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform}/${process.arch}`,
  cpus: cpus().length,
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  memoryGb: Math.round(totalmem() / 2 ** 30),
  loadAverageAtStart: loadavg(),
}
console.log(
  `partner-sandbox benchmarks: node ${machine.node}, ${machine.platform}, ${machine.cpus} CPU(s) ` +
    `(${machine.cpu}), load average ${machine.loadAverageAtStart.map((n) => n.toFixed(2)).join(' ')}`,
)
if (machine.loadAverageAtStart[0] > 0.5)
  console.log('NOTE: the machine is busy; other processes will disturb these figures.')

const { only } = parseArgs({ options: { only: { type: 'string' } } }).values
if (only !== undefined && only !== 'postgres' && only !== 'partner') {
  console.error(
    `--only takes "postgres" (the PostgreSQL engine's rows) or "partner" (what a partner's suite meets), not "${only}"`,
  )
  process.exit(2)
}

/** Prints the summary and writes every figure to bench/results/<date>.json. */
function finish(rows, figures) {
  const seconds = (performance.now() - started) / 1000
  printTable('Summary', ['figure', 'measured', 'target', 'verdict'], rows, [
    `total ${fmt(seconds, 1)} s; load average at the end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  ])
  const dir = join(root, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${machine.date.slice(0, 19).replaceAll(':', '-')}Z.json`)
  const summary = rows.map(([figure, measured, target, result]) => ({
    figure,
    measured,
    target,
    result,
  }))
  writeFileSync(
    file,
    `${JSON.stringify({ machine: { ...machine, loadAverageAtEnd: loadavg() }, seconds, summary, ...figures }, null, 2)}\n`,
  )
  console.log(`\nfigures written to ${file}`)
}

try {
  if (only === 'postgres') {
    const postgres = await postgresEngine()
    finish(postgresRows(postgres), { postgres })
  } else if (only === 'partner') await partner()
  else await all()
} catch (error) {
  printChildProblems()
  throw error
} finally {
  await killAllChildren()
}

// The rows of what a partner's suite meets (the figures of issue 39). Function declarations:
// the top-level await above calls them before a `const` below would be initialised.
function vsBareRows(http) {
  return http.routes.map((r) => [
    `${r.route} vs bare Hono sending the same bytes (CLI, default flags)`,
    fmtRatio(r.vsBare),
    `>= ${r.vsBareTarget}x`,
    verdict(r.vsBarePass),
  ])
}
function flowRows(flows) {
  return [
    [
      'Happy-path flows/s over HTTP, 16 clients (load generator in its own process)',
      fmt(flows.rate),
      `>= ${fmt(flows.target)}, no 5xx`,
      verdict(flows.pass),
    ],
    ...flows.requests.map((r) => [
      `${r.step}: p50 / p99 ms at ${flows.clients.map((c) => `${c}`).join(' and ')} client(s)`,
      flows.clients.map((c) => `${fmt(r.at[c].p50, 1)} / ${fmt(r.at[c].p99, 1)}`).join(' and '),
      `p99 <= ${flows.clients.map((c) => r.at[c].target).join(' and ')}`,
      verdict(r.pass),
    ]),
  ]
}
function coldRow(start) {
  return [
    'Cold start to first 200 (sandbox / Prism time in brackets)',
    `${fmt(start.median)} ms (${fmtRatio(start.vsPrism)})`,
    '< 400 ms',
    verdict(start.pass),
  ]
}

async function partner() {
  const http = await httpThroughput()
  const flows = await happyPath()
  const start = await coldStart()
  finish([...vsBareRows(http), ...flowRows(flows), coldRow(start)], { http, flows, start })
}

async function all() {
  const http = await httpThroughput()
  const histories = await history()
  const writes = await httpWrites()
  const start = await coldStart()
  const installed = await installedStart()
  const webhooks = await webhookFanout()
  const flows = await happyPath()
  const postgres = await postgresEngine()
  const memory = await rssPerRow()
  const rows = [
    ...vsBareRows(http),
    ...histories.figures.map((f) => [
      f.label,
      fmtRatio(f.ratio),
      f.target ? `>= ${f.target}x` : 'none',
      f.target ? verdict(f.pass) : '-',
    ]),
    ...http.routes.map((r) => [
      `${r.route} vs Prism`,
      fmtRatio(r.vsPrism, 1),
      `>= ${r.vsPrismTarget}x`,
      verdict(r.vsPrismPass),
    ]),
    [`${http.vsMockoon.route} vs Mockoon`, fmtRatio(http.vsMockoon.ratio, 1), 'none', '-'],
    ...flowRows(flows),
    [
      'Writes/s 100k vs 1k users, memory (register over HTTP)',
      fmtRatio(writes.memoryRatio),
      '>= 0.8x',
      verdict(writes.memoryRatio.median >= writes.ratioTarget),
    ],
    [
      'Writes/s 100k vs 1k users, data file (register over HTTP)',
      fmtRatio(writes.fileRatio),
      '>= 0.8x',
      verdict(writes.fileRatio.median >= writes.ratioTarget),
    ],
    [
      'Longest event-loop stall during writes, 100k users, data file',
      `${fmt(writes.stallMs, 1)} ms`,
      '<= 50 ms',
      verdict(writes.stallMs <= writes.stallTarget),
    ],
    [
      'Restart from a 100k-user data file to first 200',
      `${fmt(start.restartMedian)} ms`,
      '< 1,000 ms',
      verdict(start.restartPass),
    ],
    [
      'Webhook deliveries/s and p50 event -> delivery at that rate',
      `${fmt(webhooks.rate)}/s, p50 ${fmt(webhooks.p50)} ms`,
      '>= 2,000/s, < 20 ms',
      verdict(webhooks.pass),
    ],
    [
      'RSS with 100k users',
      `${fmt(writes.rssMb)} MB`,
      '<= 300 MB',
      verdict(writes.rssMb <= writes.rssTarget),
    ],
    [
      "RSS per stored row added (the soak's history run, data file)",
      `${fmt(memory.kbPerRow, 2)} KB`,
      `<= ${memory.target} KB`,
      verdict(memory.pass),
    ],
    [
      'Installed package (npm pack + install) to first 200',
      `median ${fmt(installed.median)} ms, max ${fmt(installed.max)} ms`,
      '< 500 ms',
      installed.verdict,
    ],
    coldRow(start),
    ...postgresRows(postgres),
  ]
  finish(rows, { http, histories, writes, start, installed, webhooks, flows, postgres, memory })
}
