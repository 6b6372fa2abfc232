// Does a user's history slow that user down? The same request for users with 1x and 10x (or
// far more) history, side by side in interleaved rounds like http-throughput: the
// transactions page (`?limit=50`) of a card holding 10, 1,000 and 10,000 transactions, read
// while another user writes (BACKGROUND_WRITES logins a second: a page kept until the next
// write anywhere would otherwise be measured instead of the page), and
// login (a new code each time) for a fresh user and for users with 500 and 5,000 past codes,
// and an endpoint's delivery log (`?limit=20`) with 500 and 5,000 deliveries.
// The history is built once, in-process from dist/ (real rows made through the API, then
// copied with new ids through the store, which is what 10,000 purchases would leave behind),
// into a data file; the measured sandbox is the CLI reading it (`--data`, else default
// flags). Every login run (warm-up runs too) uses a user of its own, so a run's own new codes
// do not pile up on the next run's user (a fresh user still gains a code per request).
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { startSandbox } from '../dist/bundle/index.js'
import { call, flow } from './flow.mjs'
import {
  fmt,
  fmtRatio,
  httpGet,
  isMain,
  killAllChildren,
  killChild,
  loadTest,
  median,
  partnerHeaders,
  printTable,
  ratios,
  sleep,
  spread,
  startSandboxCli,
  verdict,
} from './lib.mjs'

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SECONDS = Number(process.env.BENCH_HISTORY_SECONDS ?? 2)
const ROUNDS = Math.max(3, Number(process.env.BENCH_HISTORY_ROUNDS ?? 3))
const ROUND_WARMUP = 1
const PASSWORD = 'Bench-Passw0rd!'
const TARGET = 0.8
const TRANSACTIONS = [10, 1_000, 10_000]
const CODES = [0, 500, 5_000]
/** Below the 10,000-a-partner cap together, so retention removes none during the runs. */
const DELIVERIES = [500, 5_000]
/** Logins per second of another user during the transactions runs: other traffic writes. */
const BACKGROUND_WRITES = Number(process.env.BENCH_HISTORY_WRITES ?? 100)

/** Copies `row` `count` times with new ids, each older than the last, in one store batch. */
function copies(store, collection, row, count, change = () => ({})) {
  const start = Date.parse(row.created_at)
  store.batch((w) => {
    for (let i = 1; i <= count; i++) {
      const created_at = new Date(start - i * 1_000).toISOString()
      w.put(collection, { ...row, id: `${row.id}h${i}`, created_at, ...change(created_at) })
    }
  })
}

/** Endpoints with `count` delivered webhook.test deliveries each; answers their ids by count. */
async function deliveryLogs(sandbox) {
  const receiver = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
  })
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const hooks = {}
  try {
    for (const count of DELIVERIES) {
      const { webhook } = await call(sandbox.url, 'POST', '/api/v1/partner/webhooks', {
        url: `http://127.0.0.1:${receiver.address().port}/hook/${count}`,
        events: ['webhook.test'],
      })
      await call(sandbox.url, 'POST', `/api/v1/partner/webhooks/${webhook.id}/test`, {})
      let row
      for (let i = 0; i < 500 && !row?.completed_at; i++) {
        await sleep(10)
        ;[row] = sandbox.store.lookup('webhook_deliveries', 'deliveries_by_webhook', webhook.id)
      }
      if (!row?.completed_at) throw new Error(`the test delivery to ${webhook.id} did not finish`)
      copies(sandbox.store, 'webhook_deliveries', row, count - 1, (at) => ({ completed_at: at }))
      hooks[count] = webhook.id
    }
    return hooks
  } finally {
    receiver.close()
  }
}

/** Builds the data file; answers the card holders' Bearer headers, the login users' emails
 * and the endpoints with a delivery log. */
async function buildHistory(file) {
  const sandbox = await startSandbox({ port: 0, data: file, logLevel: 'silent', rateLimit: 'off' })
  try {
    const hooks = await deliveryLogs(sandbox)
    const store = sandbox.store
    const userOf = (email) => store.all('users').find((u) => u.email === email)
    const holders = {}
    for (const count of TRANSACTIONS) {
      const tag = `history.tx${count}.${process.pid}`
      const bearer = await flow(sandbox.url, tag) // one transaction: the funding
      const user = userOf(`flow.${tag}@example.com`)
      const [funding] = store.lookup('transactions', 'transactions_by_user', user.id)
      copies(store, 'transactions', funding, count - 1)
      holders[count] = bearer
    }
    const logins = Object.fromEntries(CODES.map((n) => [n, []]))
    logins.writer = `history.writer.${process.pid}@example.com`
    await call(sandbox.url, 'POST', '/api/v1/partner/auth/register', {
      first_name: 'History',
      last_name: 'Writer',
      email: logins.writer,
      phone_number: '+14155550100',
      date_of_birth: '1985-06-15',
      password: PASSWORD,
      ssn: '123-45-6789',
    })
    // Two users per round and target: one for the warm-up run, a fresh one for the measured run.
    for (let n = 0; n < ROUNDS * 2; n++) {
      for (const count of CODES) {
        const email = `history.codes${count}.n${n}.${process.pid}@example.com`
        await call(sandbox.url, 'POST', '/api/v1/partner/auth/register', {
          first_name: 'History',
          last_name: 'Bench',
          email,
          phone_number: '+14155550100',
          date_of_birth: '1985-06-15',
          password: PASSWORD,
          ssn: '123-45-6789',
        })
        if (count > 0) {
          await call(sandbox.url, 'POST', '/api/v1/partner/auth/login', {
            email,
            password: PASSWORD,
          })
          const [code] = store.lookup('verification_codes', 'codes_by_user', userOf(email).id)
          // Past codes, each replaced by the next: what `count` earlier logins leave behind.
          copies(store, 'verification_codes', code, count, (at) => ({
            ended_at: at,
            ended_reason: 'replaced',
          }))
        }
        logins[count].push(email)
      }
    }
    return { holders, logins, hooks }
  } finally {
    await sandbox.close()
  }
}

/**
 * Sends the writer's request at `rate` a second until the returned function is called, which
 * resolves with the writes a second it reached (a busy sandbox answers fewer).
 */
function background({ url, headers, body }, rate) {
  let finished
  const result = new Promise((resolve) => {
    finished = resolve
  })
  const instance = autocannon(
    { url, method: 'POST', headers, body, connections: 2, overallRate: rate, duration: 3_600 },
    (_error, r) => finished(r ? r.requests.total / r.duration : 0),
  )
  return () => {
    instance.stop()
    return result
  }
}

/** Interleaved rounds over `targets` (each { key, url, headers, body?, method?, writer? }). */
async function measure(targets) {
  for (const t of targets) t.runs = []
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(k + round) % targets.length]
      // n: 0 for the warm-up run, 1 for the measured one (each login run has its own user).
      const options = (duration, n) => ({
        headers: t.headers,
        connections: CONNECTIONS,
        duration,
        method: t.method,
        requests: t.body ? [{ method: 'POST', body: t.body(round * 2 + n) }] : undefined,
      })
      const stop = t.writer ? background(t.writer, BACKGROUND_WRITES) : async () => undefined
      try {
        await loadTest(t.url, options(ROUND_WARMUP, 0))
        t.runs.push(await loadTest(t.url, options(SECONDS, 1)))
      } finally {
        const writes = await stop()
        if (writes !== undefined) t.runs.at(-1).backgroundWrites = writes
      }
    }
  }
  return Object.fromEntries(targets.map((t) => [t.key, t.runs]))
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-history-'))
  let sandbox
  try {
    const file = join(dir, 'history.json')
    const { holders, logins, hooks } = await buildHistory(file)
    sandbox = await startSandboxCli(['--data', file])
    const json = { ...partnerHeaders, 'content-type': 'application/json' }
    const writer = {
      url: `${sandbox.url}/api/v1/partner/auth/login`,
      headers: json,
      body: JSON.stringify({ email: logins.writer, password: PASSWORD }),
    }
    const targets = [
      ...TRANSACTIONS.map((count) => ({
        key: `tx${count}`,
        label: `GET /cards/transactions?limit=50, ${fmt(count)} transactions`,
        url: `${sandbox.url}/api/v1/partner/cards/transactions?limit=50`,
        headers: { ...partnerHeaders, ...holders[count] },
        writer,
      })),
      ...DELIVERIES.map((count) => ({
        key: `deliveries${count}`,
        label: `GET /webhooks/{id}/deliveries?limit=20, ${fmt(count)} deliveries`,
        url: `${sandbox.url}/api/v1/partner/webhooks/${hooks[count]}/deliveries?limit=20`,
        headers: partnerHeaders,
        writer,
      })),
      ...CODES.map((count) => ({
        key: `login${count}`,
        label: `POST /auth/login, ${count ? `${fmt(count)} past codes` : 'a fresh user'}`,
        url: `${sandbox.url}/api/v1/partner/auth/login`,
        method: 'POST',
        headers: json,
        body: (n) => JSON.stringify({ email: logins[count][n], password: PASSWORD }),
      })),
    ]
    // Checked first: a benchmark of errors, or of a page missing its history, would mislead.
    for (const count of TRANSACTIONS) {
      const t = targets.find((x) => x.key === `tx${count}`)
      const page = await httpGet(t.url, t.headers, 10_000)
      const rows = page.status === 200 ? JSON.parse(page.body).data.data.length : page.status
      if (rows !== Math.min(50, count)) throw new Error(`${t.label}: ${rows} rows, ${page.body}`)
    }
    for (const count of DELIVERIES) {
      const t = targets.find((x) => x.key === `deliveries${count}`)
      const page = await httpGet(t.url, t.headers, 10_000)
      if (page.status !== 200) throw new Error(`${t.label}: ${page.status} ${page.body}`)
    }
    await call(sandbox.url, 'POST', '/api/v1/partner/auth/login', JSON.parse(writer.body))
    const runs = await measure(targets)
    const rps = (key) => runs[key].map((r) => r.rps)
    const pair = (label, heavy, light, target) => {
      const ratio = spread(ratios(rps(heavy), rps(light)))
      return { label, ratio, target, pass: target ? ratio.median >= target : undefined }
    }
    const figures = [
      pair('transactions page, 10k vs 10 transactions', 'tx10000', 'tx10', TARGET),
      pair('transactions page, 10k vs 1k transactions (10x)', 'tx10000', 'tx1000'),
      pair('login, 5k past codes vs a fresh user', 'login5000', 'login0', TARGET),
      pair('login, 5k vs 500 past codes (10x)', 'login5000', 'login500'),
      pair('delivery log, 5k vs 500 deliveries (10x)', 'deliveries5000', 'deliveries500'),
    ]
    printTable(
      `History (CLI with --data holding the history, else default flags; lists read while another user logs in ${BACKGROUND_WRITES} times a second; ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per target, each after a ${ROUND_WARMUP} s warm-up run)`,
      [
        'target',
        'median req/s',
        ...Array.from({ length: ROUNDS }, (_, i) => `round ${i + 1}`),
        "other user's writes/s",
        'non-2xx',
        'errors',
      ],
      targets.map((t) => [
        t.label,
        fmt(median(rps(t.key))),
        ...rps(t.key).map((v) => fmt(v)),
        t.writer ? fmt(median(runs[t.key].map((r) => r.backgroundWrites))) : '-',
        fmt(runs[t.key].reduce((n, r) => n + r.non2xx, 0)),
        fmt(runs[t.key].reduce((n, r) => n + r.errors + r.timeouts, 0)),
      ]),
      figures.map(
        (f) =>
          `${f.label}: ${fmtRatio(f.ratio)}  ${f.target ? `(target >= ${f.target}x)  ${verdict(f.pass)}` : '(no target)'}`,
      ),
    )
    const failed = targets.filter((t) => runs[t.key].some((r) => r.non2xx > 0 || r.errors > 0))
    if (failed.length > 0)
      throw new Error(`non-2xx answers or errors from ${failed.map((t) => t.label).join(', ')}`)
    return {
      rounds: ROUNDS,
      seconds: SECONDS,
      figures,
      rps: Object.fromEntries(targets.map((t) => [t.key, rps(t.key)])),
    }
  } finally {
    if (sandbox) await killChild(sandbox.child)
    await killAllChildren()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (isMain(import.meta.url)) await run()
