// `npm run bench`: builds dist/ (see package.json), then runs every benchmark in sequence and
// prints a summary. Missed targets are reported, never fatal; a crash exits non-zero.
import { cpus, loadavg } from 'node:os'
import { run as coldStart } from './cold-start.mjs'
import { run as happyPath } from './happy-path.mjs'
import { run as httpThroughput } from './http-throughput.mjs'
import { run as installedStart } from './installed-start.mjs'
import { fmt, killAllChildren, printTable, verdict } from './lib.mjs'
import { run as storeWrites } from './store-writes.mjs'
import { run as webhookFanout } from './webhook-fanout.mjs'

const started = performance.now()
console.log(
  `partner-sandbox benchmarks: node ${process.version}, ${process.platform}/${process.arch}, ` +
    `${cpus().length} CPU(s) (${cpus()[0]?.model.trim() ?? 'unknown'}), ` +
    `load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
)
if (loadavg()[0] > 0.5)
  console.log('NOTE: the machine is busy; other processes will disturb these figures.')

try {
  const cold = await coldStart()
  const installed = await installedStart()
  const http = await httpThroughput()
  const store = await storeWrites()
  const webhooks = await webhookFanout()
  const flows = await happyPath()
  printTable(
    'Summary',
    ['benchmark', 'figure', 'target', 'verdict'],
    [
      [
        'HTTP: GET /partner/me (org auth) vs bare Hono, same body',
        `${fmt(http.sandbox)} vs ${fmt(http.bare)} req/s = ${fmt(http.ratio * 100, 1)} %`,
        '>= 60 %',
        verdict(http.ratio >= 0.6),
      ],
      [
        'HTTP: GET /partner/users/me (org auth + session) vs bare Hono',
        `${fmt(http.session)} vs ${fmt(http.bare)} req/s = ${fmt(http.sessionRatio * 100, 1)} %`,
        '>= 50 %',
        verdict(http.sessionRatio >= 0.5),
      ],
      [
        'Cold start to first authenticated 200',
        `median ${fmt(cold.median)} ms, max ${fmt(cold.max)} ms`,
        '< 400 ms',
        verdict(cold.median < 400),
      ],
      [
        'Installed package (npm pack + install) to first 200',
        `median ${fmt(installed.median)} ms, max ${fmt(installed.max)} ms`,
        '< 500 ms',
        installed.verdict,
      ],
      [
        'Webhook fan-out, 1,000 events x 5 endpoints (burst)',
        `${fmt(webhooks.rate)} deliveries/s`,
        '>= 2,000/s',
        verdict(webhooks.rate >= 2000),
      ],
      [
        'Webhook event -> delivery p50 (paced; burst in brackets)',
        `${fmt(webhooks.p50)} ms (${fmt(webhooks.burstP50)} ms)`,
        '< 20 ms',
        verdict(webhooks.p50 < 20),
      ],
      [
        'Happy-path flows over HTTP (9 requests each)',
        `${fmt(flows.rate)} flows/s`,
        '>= 200/s',
        verdict(flows.rate >= 200),
      ],
      [
        'Store writes/s, 50k rows vs 1k rows',
        `${fmt(store.large)} vs ${fmt(store.small)} = ${fmt(store.ratio * 100, 1)} %`,
        '>= 50 %',
        verdict(store.ratio >= 0.5),
      ],
    ],
    [`total ${fmt((performance.now() - started) / 1000, 1)} s`],
  )
} finally {
  await killAllChildren()
}
