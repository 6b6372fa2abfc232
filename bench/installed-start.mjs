// Installed-package start: `npm pack` (run `npm run build` first; run-all does), install the
// tarball into an empty temp folder from the local file (offline: the package has no
// dependencies), then time from spawning its `partner-sandbox` command (the bin npx runs,
// bin/partner-sandbox.mjs -> dist/bundle/cli.js) to the first 200 of an authenticated
// GET /api/v1/partner/me. Target: under 500 ms. Prints MISS when missed.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  fmt,
  isMain,
  killAllChildren,
  median,
  printTable,
  root,
  SANDBOX_BANNER_URL,
  timeToFirst200,
  verdict,
} from './lib.mjs'

const RUNS = Number(process.env.BENCH_INSTALLED_RUNS ?? 5)
const TARGET_MS = 500
const DEADLINE_MS = 10_000

/** Packs and installs the package; answers the installed command's path and the temp folder. */
function install() {
  const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-bench-'))
  const env = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false' }
  const packed = execFileSync(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
    { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  )
  const tarball = join(dir, JSON.parse(packed.slice(packed.indexOf('[')))[0].filename)
  const app = join(dir, 'app')
  mkdirSync(app)
  execFileSync('npm', ['install', '--no-fund', tarball], { cwd: app, env, stdio: 'ignore' })
  return { dir, bin: join(app, 'node_modules', 'partner-sandbox', 'bin', 'partner-sandbox.mjs') }
}

const once = (bin) => timeToFirst200([bin, '--port', '0'], SANDBOX_BANNER_URL, DEADLINE_MS)

export async function run() {
  const installStarted = performance.now()
  const { dir, bin } = install()
  const installMs = performance.now() - installStarted
  const runs = []
  try {
    for (let i = 0; i < RUNS; i++) runs.push(await once(bin))
  } finally {
    await killAllChildren()
    rmSync(dir, { recursive: true, force: true })
  }
  const med = median(runs)
  const max = Math.max(...runs)
  printTable(
    `Installed package: spawn its partner-sandbox command -> first authenticated 200 (${RUNS} runs)`,
    ['run', 'to first 200 ms'],
    [...runs.map((ms, i) => [`#${i + 1}`, fmt(ms)]), ['median', fmt(med)], ['max', fmt(max)]],
    [
      `pack + offline install took ${fmt(installMs)} ms (not part of the figure).`,
      `median ${fmt(med)} ms, max ${fmt(max)} ms   (target < ${TARGET_MS} ms)   median ${verdict(med < TARGET_MS)}`,
    ],
  )
  return { median: med, max, verdict: verdict(med < TARGET_MS) }
}

if (isMain(import.meta.url)) await run()
