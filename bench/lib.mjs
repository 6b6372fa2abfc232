// Shared helpers for the benchmarks: child processes that are always cleaned up, a tiny HTTP
// client, an autocannon wrapper and a table printer. Benchmarks print figures; they are not
// tests and never fail on a missed target (only on a crash).
import { spawn } from 'node:child_process'
import http from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import autocannon from 'autocannon'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The bundled default partner (test-mode credentials that exist only in the sandbox). */
export const partnerHeaders = {
  'x-partner-key': 'pk_test_acme_sandbox_default_key',
  'x-partner-secret': 'sk_test_acme_sandbox_default_secret',
}

/** True when the module with this `import.meta.url` was the script node was started with. */
export const isMain = (moduleUrl) =>
  process.argv[1] !== undefined && moduleUrl === pathToFileURL(process.argv[1]).href

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// Child processes: every one is tracked and killed at the end, on error, and on Ctrl-C.

const children = new Set()
/** Lines kept of each server's warnings and errors (stack frames included). */
const PROBLEM_LINES = 60

/**
 * Spawns `node ...args` from the project root with stdout/stderr piped. With `stdinLifeline`,
 * stdin stays an open pipe: the bench servers exit when it closes, so they cannot outlive
 * this process even if it is killed with SIGKILL.
 */
export function spawnNode(args, { stdinLifeline = false, env } = {}) {
  // BENCH_PROFILE_DIR=dir: the sandbox child writes a CPU profile there (for finding hot spots).
  const profile =
    process.env.BENCH_PROFILE_DIR && args[0]?.includes(process.env.BENCH_PROFILE_MATCH ?? 'sandbox')
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
      : []
  const child = spawn(process.execPath, [...profile, ...args], {
    cwd: root,
    env: env ? { ...process.env, ...env } : process.env,
    stdio: [stdinLifeline ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  child.stderrText = ''
  /** The newest lines above `info` (a 500's stack): what a failed run prints of its servers. */
  child.problems = []
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    if (child.stderrText.length < 20_000) child.stderrText += chunk
    for (const line of chunk.split('\n')) {
      if (!/ (warn|error) /.test(line) && !/^\s+at /.test(line)) continue
      child.problems.push(line)
      if (child.problems.length > PROBLEM_LINES) child.problems.shift()
    }
  })
  child.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child)
      resolve({ code, signal })
    })
  })
  return child
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function killChild(child, graceMs = 2_000) {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await child.exited
  clearTimeout(timer)
}

/** Prints what the servers still running logged above `info` (after a benchmark failed). */
export function printChildProblems() {
  for (const child of children) {
    if (child.problems.length === 0) continue
    console.error(`\n${child.spawnargs.slice(1).join(' ')} logged:\n${child.problems.join('\n')}`)
  }
}

export async function killAllChildren() {
  await Promise.all([...children].map((child) => killChild(child)))
}

process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const child of children) child.kill('SIGKILL')
    process.exit(130)
  })
}

/**
 * Resolves with the first match of `pattern` in the child's stdout; rejects when the child
 * exits first or after `timeoutMs`. Also returns the stdout read so far.
 */
export function waitForStdout(child, pattern, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    let text = ''
    const done = (error, value) => {
      clearTimeout(timer)
      child.stdout.off('data', onData)
      child.off('exit', onExit)
      if (error) reject(error)
      else resolve(value)
    }
    const onData = (chunk) => {
      text += chunk
      const match = pattern.exec(text)
      if (match) done(undefined, { match, text })
    }
    const onExit = (code, signal) =>
      done(
        new Error(
          `child exited (code ${code}, signal ${signal}) before printing ${pattern}\n` +
            `stdout: ${text}\nstderr: ${child.stderrText}`,
        ),
      )
    const timer = setTimeout(
      () => done(new Error(`no ${pattern} on stdout after ${timeoutMs} ms\nstdout: ${text}`)),
      timeoutMs,
    )
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', onData)
    child.once('exit', onExit)
  })
}

/** Accepts only http://127.0.0.1:PORT URLs: the benchmarks never target anything else. */
export function assertLoopback(url) {
  const parsed = new URL(url)
  if (parsed.protocol !== 'http:' || parsed.hostname !== '127.0.0.1')
    throw new Error(`refusing to benchmark ${url}: only http://127.0.0.1 is allowed`)
  return url
}

/**
 * Starts `node bench/servers/<name>.mjs`, which prints `READY <url>` once it listens.
 * `build` is the checkout whose server (and dist/) runs: another build's, when comparing two.
 * Returns { child, url }.
 */
export async function startBenchServer(name, env, build = root) {
  const child = spawnNode([join(build, 'bench', 'servers', `${name}.mjs`)], {
    stdinLifeline: true,
    env,
  })
  const { match } = await waitForStdout(child, /^READY (\S+)$/m, 15_000)
  return { child, url: assertLoopback(match[1]) }
}

/**
 * The sandbox as a user runs it: `node bin/partner-sandbox.mjs` (the dist/ bundle), default
 * flags but a free port and a rate limit no benchmark reaches (the default partner's 1,000 a
 * minute would answer 429s; the limiter still runs and sends its headers). The request log
 * goes to stderr at `info` as by default; this process reads the pipe (and keeps its start).
 * `build` is the checkout whose CLI runs (another build's, when comparing two).
 * Returns { child, url }.
 */
export async function startSandboxCli(extraArgs = [], build = root) {
  const child = spawnNode([
    join(build, 'bin', 'partner-sandbox.mjs'),
    '--port',
    '0',
    '--rate-limit',
    '1000000000',
    ...extraArgs,
  ])
  const { match } = await waitForStdout(child, SANDBOX_BANNER_URL, 60_000)
  return { child, url: assertLoopback(match[1]) }
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** One GET on a fresh connection (no keep-alive, no client-side pooling or warm-up effects). */
export function httpGet(url, headers = {}, timeoutMs = 2_000) {
  assertLoopback(url)
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false, timeout: timeoutMs }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode, body }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)))
    req.on('error', reject)
  })
}

/**
 * Sends a line to a bench server's stdin and resolves with the JSON it answers on the line
 * starting with `reply` (the servers' small command protocol: STATS, ELD, COMPACT).
 */
export async function ask(child, command, reply = command.split(' ')[0]) {
  const answer = waitForStdout(child, new RegExp(`^${reply} (.*)$`, 'm'), 60_000)
  child.stdin.write(`${command}\n`)
  return JSON.parse((await answer).match[1])
}

/** A free TCP port on 127.0.0.1 (for servers that cannot be told to pick one, like Prism). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = http.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/**
 * One autocannon run; every target gets the same settings. `requests` (autocannon's own
 * option) lets a write benchmark build a fresh body per request, and `setupClient` (also
 * autocannon's) gives each connection headers of its own, such as its own user's session.
 * `url` may be several URLs (replicas of one sandbox): connection i goes to url[i % n], as a
 * round-robin load balancer would spread them. Returns the figures we print.
 */
export async function loadTest(
  url,
  { headers = {}, connections = 50, duration = 5, method = 'GET', body, requests, setupClient },
) {
  for (const one of [url].flat()) assertLoopback(one)
  const r = await autocannon({
    url,
    headers,
    method,
    body,
    requests,
    setupClient,
    connections,
    duration,
    pipelining: 1,
    timeout: 10,
  })
  return {
    rps: r.requests.total / r.duration,
    total: r.requests.total,
    duration: r.duration,
    non2xx: r.non2xx,
    status4xx: r['4xx'],
    status5xx: r['5xx'],
    errors: r.errors,
    timeouts: r.timeouts,
    avgLatency: r.latency.average,
    p99: r.latency.p99,
    maxLatency: r.latency.max,
    bytes: r.requests.total ? Math.round(r.throughput.total / r.requests.total) : 0,
  }
}

// ---------------------------------------------------------------------------------------------
// Figures

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Percentile (0..100) of an already sorted numeric array-like. */
export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

export const fmt = (n, digits = 0) =>
  Number(n).toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  })

/** A missed target always prints MISS; nothing else is ever called a pass. */
export const verdict = (ok) => (ok ? 'PASS' : 'MISS')

/** Median, min and max of per-round figures (ratios are taken per round, then summarised). */
export const spread = (values) => ({
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
  rounds: values,
})

/** "0.62x (0.58-0.66)": a per-round ratio's median with its min and max. */
export const fmtRatio = (s, digits = 2) =>
  `${fmt(s.median, digits)}x (${fmt(s.min, digits)}-${fmt(s.max, digits)})`

/** Per-round ratios a[i] / b[i]. */
export const ratios = (a, b) => a.map((value, i) => value / b[i])

/** Prints a boxed block: a title, a header row, rows of cells, then free-form notes. */
export function printTable(title, header, rows, notes = []) {
  const cells = [header, ...rows].map((row) => row.map((cell) => String(cell)))
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)))
  // First column (labels) left-aligned, figures right-aligned.
  const line = (row) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`
  const out = ['', `== ${title} ==`, rule, line(cells[0]), rule, ...cells.slice(1).map(line), rule]
  for (const note of notes) out.push(`  ${note}`)
  console.log(out.join('\n'))
}

/** The API line of the sandbox's banner; its group is the base URL. */
export const SANDBOX_BANNER_URL = /^ {2}API {7}(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m

/**
 * Spawns `args`, waits for its URL on stdout (`pattern`'s first group), then polls an
 * authenticated GET /api/v1/partner/me until the first 200. Answers the milliseconds taken.
 */
export async function timeToFirst200(args, pattern, deadlineMs) {
  const t0 = performance.now()
  const child = spawnNode(args)
  try {
    const { match } = await waitForStdout(child, pattern, deadlineMs)
    const url = `${assertLoopback(match[1])}/api/v1/partner/me`
    let last
    while (performance.now() - t0 < deadlineMs) {
      last = await httpGet(url, partnerHeaders, deadlineMs).catch((error) => ({ error }))
      if (last.status === 200) break
      await sleep(2)
    }
    if (last?.status !== 200)
      throw new Error(`no 200 from ${url} within ${deadlineMs} ms: ${last?.status ?? last?.error}`)
    return performance.now() - t0
  } finally {
    await killChild(child, 10_000)
  }
}
