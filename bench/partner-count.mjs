// The control plane's cost as a shared sandbox gains partners (PostgreSQL, one replica). A
// request of the control plane that names no partner, and each sweep, reads the clocks of the
// partners whose time is their own (an index of those), not every partner's row. Two sandboxes
// on one server, one restored with FEW partners and one with MANY: GET /_sandbox/inbox on
// each, one request at a time as a test suite sends them, in interleaved rounds (a block of
// requests to each a round); the figure is the ratio of their median times (FEW's over MANY's,
// so 1x is as fast). First with no partner on a clock of its own, then with a tenth of each
// sandbox's partners on one (advanced an hour).
import { randomUUID } from 'node:crypto'
import {
  fmt,
  fmtRatio,
  median,
  printTable,
  ratios,
  sleep,
  spread,
  startSandboxCli,
  verdict,
} from './lib.mjs'

const FEW = 10
const MANY = Number(process.env.BENCH_PARTNERS ?? 1_000)
const ROUNDS = 30
/** Requests to each sandbox a round, one at a time. */
const BLOCK = 30
const SETTLE_MS = 5_000
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

/** A round's GET /_sandbox/inbox to `base`, one at a time: the median time, and failures. */
async function block(base) {
  const times = []
  let failed = 0
  for (let i = 0; i < BLOCK; i++) {
    const start = performance.now()
    const res = await fetch(`${base}/_sandbox/inbox`)
    await res.arrayBuffer()
    times.push(performance.now() - start)
    if (res.status !== 200) failed++
  }
  return { ms: median(times), failed }
}

/** FEW's and MANY's sandboxes in interleaved rounds; the ratio of their median times. */
async function compare(targets, clocks) {
  for (const t of targets) await withPartners(t.base, t.count, clocks)
  // The first sweep after a restore looks at every partner's history caps once: let it pass.
  await sleep(SETTLE_MS)
  const runs = targets.map(() => [])
  let failed = 0
  for (const t of targets) failed += (await block(t.base)).failed // warm-up
  for (let round = 0; round < ROUNDS; round++)
    for (let k = 0; k < targets.length; k++) {
      const i = (k + round) % targets.length
      const r = await block(targets[i].base)
      runs[i].push(r.ms)
      failed += r.failed
    }
  const ratio = spread(ratios(runs[0], runs[1]))
  return {
    clocks,
    few: runs[0],
    many: runs[1],
    ratio,
    failed,
    pass: ratio.median >= PARTNERS_TARGET && failed === 0,
  }
}

const msOf = (rounds) =>
  `${fmt(median(rounds), 2)} (${fmt(Math.min(...rounds), 2)}-${fmt(Math.max(...rounds), 2)})`

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
    `The control plane as partners grow (PostgreSQL, 1 replica each): GET /_sandbox/inbox one at a time, ${ROUNDS} interleaved rounds of ${BLOCK} requests per sandbox`,
    [
      'partners',
      `${fmt(FEW)}: ms (rounds' median, min-max)`,
      `${fmt(MANY)}: ms (rounds' median, min-max)`,
      `${fmt(MANY)} vs ${fmt(FEW)}`,
      'verdict',
    ],
    figures.map((f) => [what(f), msOf(f.few), msOf(f.many), fmtRatio(f.ratio), verdict(f.pass)]),
    [
      `${fmt(MANY)} vs ${fmt(FEW)}: ${fmt(FEW)}'s median time over ${fmt(MANY)}'s, per round (target >= ${PARTNERS_TARGET}x, every answer 200)`,
    ],
  )
  return { few: FEW, many: MANY, target: PARTNERS_TARGET, figures }
}

/** The summary rows. */
export function partnersRows(label, result) {
  return result.figures.map((f) => [
    `${label}: control plane (GET /_sandbox/inbox, one at a time) speed, ${fmt(result.many)} vs ${fmt(result.few)} partners, ${f.clocks ? 'a tenth' : 'none'} on a clock of its own`,
    fmtRatio(f.ratio),
    `>= ${result.target}x`,
    verdict(f.pass),
  ])
}
