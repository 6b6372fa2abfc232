// The control plane's cost as a shared sandbox gains partners (PostgreSQL, one replica). A
// request of the control plane that names no partner, and each sweep, reads the clocks of the
// partners whose time is their own (an index of those), not every partner's row. Two sandboxes
// on one server, one restored with FEW partners and one with MANY: GET /_sandbox/inbox on
// each, in interleaved rounds, and the ratio of their req/s; first with no partner on a clock
// of its own, then with a tenth of each sandbox's partners on one (advanced an hour).
import { randomUUID } from 'node:crypto'
import {
  fmt,
  fmtRatio,
  loadTest,
  printTable,
  ratios,
  spread,
  startSandboxCli,
  verdict,
} from './lib.mjs'

const FEW = 10
const MANY = Number(process.env.BENCH_PARTNERS ?? 1_000)
const SECONDS = 2
const ROUNDS = 5
const CONNECTIONS = 8
export const PARTNERS_TARGET = 0.8
const HOUR_MS = 3_600_000

/**
 * Restores `url`'s own snapshot with `count` partners (copies of the first, new keys), every
 * tenth with a clock of its own when `clocks`.
 */
async function withPartners(url, count, clocks) {
  const doc = await (await fetch(`${url}/_sandbox/snapshot`)).json()
  const partners = doc.collections.partners
  const [first] = Object.values(partners)
  for (let i = Object.keys(partners).length; i < count; i++) {
    const id = randomUUID()
    const clock = clocks && i % 10 === 0 ? { clock: { offset_ms: HOUR_MS, frozen_at: null } } : {}
    const name = `Bench Partner ${i}`
    partners[id] = { ...first, ...clock, id, name, display_name: name, slug: `bench-partner-${i}` }
    partners[id].api_key = `pk_test_bench_${id.replaceAll('-', '')}`
  }
  const restored = await fetch(`${url}/_sandbox/snapshot`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(doc),
  })
  if (restored.status !== 200)
    throw new Error(`restore: ${restored.status} ${await restored.text()}`)
}

/** GET /_sandbox/inbox of FEW and of MANY partners in interleaved rounds; their req/s ratio. */
async function compare(targets, clocks) {
  for (const t of targets) await withPartners(t.base, t.count, clocks)
  const runs = targets.map(() => [])
  let non2xx = 0
  const measure = async (t, duration) => {
    const r = await loadTest([`${t.base}/_sandbox/inbox`], { connections: CONNECTIONS, duration })
    non2xx += r.non2xx + r.errors
    return r.rps
  }
  for (const t of targets) await measure(t, 1)
  for (let round = 0; round < ROUNDS; round++)
    for (let k = 0; k < targets.length; k++) {
      const i = (k + round) % targets.length
      runs[i].push(await measure(targets[i], SECONDS))
    }
  const ratio = spread(ratios(runs[1], runs[0]))
  return {
    clocks,
    few: runs[0],
    many: runs[1],
    ratio,
    non2xx,
    pass: ratio.median >= PARTNERS_TARGET && non2xx === 0,
  }
}

/** Answers { few, many, target, figures: [without clocks, with a tenth on clocks] }. */
export async function run(database) {
  const targets = []
  for (const [count, schema] of [
    [FEW, 'bench_few'],
    [MANY, 'bench_many'],
  ]) {
    const { url } = await startSandboxCli(['--database', `${database}?schema=${schema}`])
    targets.push({ count, base: url })
  }
  const figures = [await compare(targets, false), await compare(targets, true)]
  const what = (f) => (f.clocks ? 'a tenth on a clock of its own' : 'none on a clock of its own')
  printTable(
    `The control plane as partners grow (PostgreSQL, 1 replica each): GET /_sandbox/inbox, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per sandbox`,
    [
      'partners',
      `${fmt(FEW)}: req/s by round`,
      `${fmt(MANY)}: req/s by round`,
      `${fmt(MANY)} vs ${fmt(FEW)}`,
      'verdict',
    ],
    figures.map((f) => [
      what(f),
      f.few.map((rps) => fmt(rps)).join(', '),
      f.many.map((rps) => fmt(rps)).join(', '),
      fmtRatio(f.ratio),
      verdict(f.pass),
    ]),
    [`target >= ${PARTNERS_TARGET}x, every answer 200`],
  )
  return { few: FEW, many: MANY, target: PARTNERS_TARGET, figures }
}

/** The summary rows. */
export function partnersRows(label, result) {
  return result.figures.map((f) => [
    `${label}: control plane (GET /_sandbox/inbox) req/s, ${fmt(result.many)} vs ${fmt(result.few)} partners, ${f.clocks ? 'a tenth' : 'none'} on a clock of its own`,
    fmtRatio(f.ratio),
    `>= ${result.target}x`,
    verdict(f.pass),
  ])
}
