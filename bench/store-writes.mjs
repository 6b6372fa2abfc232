// Store write cost vs data size: single store.put('users', row) calls against a data file
// (snapshot + journal) that already holds 1,000 and then 50,000 user rows. The point: a write
// should cost the same at both sizes, unlike a store that rewrites the whole file per write.
//
// Honest about compaction: the store is reopened from the pre-populated file (as after a
// restart), the sandbox's own indexes are defined, the loop yields to the event loop every
// few hundred writes (as a server would between requests) so that compaction I/O completes
// inside the measured time, the clock stops only after any compaction in flight has finished,
// and enough writes are made for the journal to outgrow even the 50k snapshot.
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { defineIndexes } from '../dist/src/store/indexes.js'
import { emptyCollections } from '../dist/src/store/records.js'
import { Store } from '../dist/src/store/store.js'
import { fmt, isMain, percentile, printTable, verdict } from './lib.mjs'

const SIZES = [1_000, 50_000]
const WRITES = Number(process.env.BENCH_STORE_WRITES ?? 100_000)
const YIELD_EVERY = 250
const TARGET_RATIO = 0.5

const PARTNER_ID = '6f1c2b1e-6c8a-4d3e-9a51-2d7f0c9b8e10'
const FIRST = ['Jamil', 'Jaeden', 'Maria', 'Wei', 'Amara', 'Lukas', 'Priya', 'Diego']
const LAST = ['Kreiger', 'Grant', 'Okafor', 'Nakamura', 'Silva', 'Novak', 'Haddad', 'Larsen']
const NOW = '2026-01-15T09:00:00.000Z'

/** A row shaped like the fixtures' users (~700 bytes of JSON). */
function userRow(i) {
  const first = FIRST[i % FIRST.length]
  const last = LAST[(i >> 3) % LAST.length]
  return {
    id: randomUUID(),
    partner_id: PARTNER_ID,
    email: `${first}.${last}.${i}@example.com`.toLowerCase(),
    phone_number: `+1${String(6_000_000_000 + i)}`,
    first_name: first,
    last_name: last,
    date_of_birth: `19${70 + (i % 30)}-0${1 + (i % 9)}-1${i % 10}`,
    address: {
      line1: `${100 + (i % 9_000)} Ada Expressway`,
      city: 'Port Abbyside',
      state: 'ME',
      zip: String(10_000 + (i % 89_999)),
      country_code: 'US',
    },
    secondary_address: {},
    provider_consumer_id: null,
    kyc_status: 'not_started',
    metadata: {},
    is_active: true,
    password_hash:
      'scrypt$1024$8$1$uEIDCNvuSJStUPTbKYrswA$ojiFoWl0gdDCFOSu238WXClQW57pWRITTzWy2ezTzQU',
    ssn_last4: String(1_000 + (i % 9_000)),
    profile_picture_url: null,
    created_at: NOW,
    updated_at: NOW,
  }
}

function seedData(rows) {
  const data = emptyCollections()
  data.partners[PARTNER_ID] = {
    id: PARTNER_ID,
    name: 'Acme Fintech',
    display_name: 'Acme Fintech',
    slug: 'acme-fintech',
    api_key: 'pk_test_acme_sandbox_default_key',
    api_secret_hash: 'scrypt$16384$8$1$c2FsdA$aGFzaA',
    allowed_origins: [],
    webhook_url: null,
    scopes: ['users'],
    rate_limit: 1000,
    status: 'active',
    contact_email: 'dev@acme-fintech.example',
    contact_name: 'Jill Ryan',
    config: {},
    scenario: null,
    created_at: NOW,
    updated_at: NOW,
  }
  for (let i = 0; i < rows; i++) {
    const row = userRow(i)
    data.users[row.id] = row
  }
  return data
}

const mb = (bytes) => `${fmt(bytes / 1024 / 1024, 1)} MB`

async function measure(size) {
  const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-bench-'))
  const file = join(dir, 'data.json')
  let store
  try {
    // 1. Pre-populate the data file (a new store writes its first snapshot), then close it.
    const seeded = await Store.open({ file, seed: () => seedData(size) })
    await seeded.close()
    const snapshotBytes = statSync(file).size

    // 2. Reopen it, as a sandbox restarted on an existing --data file would.
    let t = performance.now()
    store = await Store.open({ file, seed: () => seedData(0) })
    defineIndexes(store)
    const openMs = performance.now() - t

    // Count and time compactions (Store calls its public compact() when the journal outgrows
    // the threshold); the wrapper keeps the pending promise so the clock can wait for it.
    const compactions = []
    let pending
    const compact = store.compact.bind(store)
    store.compact = () => {
      const started = performance.now()
      const entry = { ms: 0 }
      compactions.push(entry)
      pending = compact().finally(() => {
        entry.ms = performance.now() - started
      })
      return pending
    }

    const existing = store.all('users')
    const latencies = new Float64Array(WRITES)
    t = performance.now()
    for (let i = 0; i < WRITES; i++) {
      const base = existing[i % existing.length]
      const row = { ...base, kyc_status: i % 2 ? 'pending' : 'approved', updated_at: NOW }
      const w = performance.now()
      store.put('users', row)
      // A microtask checkpoint after each write, as between two requests of a server: work the
      // put scheduled (a compaction serialises the snapshot here) is charged to this write.
      await null
      latencies[i] = performance.now() - w
      if ((i + 1) % YIELD_EVERY === 0) await yieldToLoop()
    }
    await pending
    const wallMs = performance.now() - t

    t = performance.now()
    await store.close()
    const closeMs = performance.now() - t
    store = undefined
    latencies.sort()
    return {
      size,
      snapshotBytes,
      openMs,
      wallMs,
      writesPerSec: WRITES / (wallMs / 1000),
      p50: percentile(latencies, 50) * 1000,
      p99: percentile(latencies, 99) * 1000,
      maxMs: latencies[latencies.length - 1],
      compactions,
      closeMs,
    }
  } finally {
    await store?.close().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function run() {
  const results = []
  for (const size of SIZES) results.push(await measure(size))
  const [small, large] = results
  const ratio = large.writesPerSec / small.writesPerSec
  printTable(
    `Store writes: ${fmt(WRITES)} single store.put('users', row) per size, data file in ${tmpdir()}`,
    [
      'rows',
      'snapshot',
      'open ms',
      'writes/s',
      'write p50 µs',
      'write p99 µs',
      'write max ms',
      'compactions',
      'longest compaction ms',
      'close ms',
    ],
    results.map((r) => [
      fmt(r.size),
      mb(r.snapshotBytes),
      fmt(r.openMs),
      fmt(r.writesPerSec),
      fmt(r.p50, 1),
      fmt(r.p99, 1),
      fmt(r.maxMs, 1),
      r.compactions.length,
      r.compactions.length ? fmt(Math.max(...r.compactions.map((c) => c.ms))) : '-',
      fmt(r.closeMs),
    ]),
    [
      'writes/s = writes / wall time, including yields to the event loop every ' +
        `${YIELD_EVERY} writes and every compaction started during the run (awaited before the clock stops).`,
      'write = put() plus the microtask checkpoint after it; "write max" is the event-loop stall of the',
      '  write that triggered a compaction (the whole snapshot is serialised synchronously).',
      'longest compaction = from the triggering write until the new snapshot is on disk.',
      'close = graceful shutdown (folds the journal into a last snapshot); not included in writes/s.',
      `50k / 1k = ${fmt(ratio * 100, 1)} %   (target: not far below, >= ${TARGET_RATIO * 100} %)   ${verdict(ratio >= TARGET_RATIO)}`,
    ],
  )
  return { small: small.writesPerSec, large: large.writesPerSec, ratio }
}

if (isMain(import.meta.url)) await run()
