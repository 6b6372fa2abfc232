import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type CollectionsData, emptyCollections, type UserRow } from '../src/store/records.js'
import { Store } from '../src/store/store.js'

// A compaction is written a slice at a time while writes go on (snapshot-writer.ts). These
// tests change rows while it runs and check that what a crash would leave at any instant,
// and what a graceful close leaves, is exactly the live state.

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-compaction-'))
  file = join(dir, 'sandbox.json')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const seed = (): CollectionsData => emptyCollections()
const user = (n: number, version = 0) =>
  ({
    id: `u-${n}`,
    email: `user${n}@example.com`,
    version,
    pad: 'x'.repeat(200),
  }) as unknown as UserRow
const tick = () => new Promise((resolve) => setImmediate(resolve))

/** A copy of the data file and its journals as a `kill -9` now would leave them. */
function crashCopy(): string {
  const to = join(mkdtempSync(join(dir, 'crash-')), 'sandbox.json')
  for (const suffix of ['', '.journal', '.journal.compacting'])
    if (existsSync(file + suffix)) copyFileSync(file + suffix, to + suffix)
  return to
}

const state = (store: Store) =>
  Object.fromEntries(store.all('users').map((u) => [u.id, u as unknown as Record<string, unknown>]))

async function reopened(path: string) {
  const store = await Store.open({ file: path, seed })
  const rows = state(store)
  await store.close()
  return rows
}

describe('data file: compaction under writes', () => {
  it('gives back the event loop while it runs, and loses or resurrects nothing', async () => {
    const store = await Store.open({ file, seed })
    const total = 20_000
    store.batch((w) => {
      for (let n = 1; n <= total; n++) w.put('users', user(n))
    })
    let done = false
    const compaction = store.compact().then(() => {
      done = true
    })
    let turns = 0
    let n = 0
    while (!done) {
      // While the snapshot is being written: update one row, delete one, create one.
      n++
      store.put('users', user(n, 1))
      store.remove('users', `u-${total - n}`)
      store.put('users', user(total + n))
      turns++
      if (turns % 25 === 0) expect(await reopened(crashCopy())).toEqual(state(store))
      await tick()
    }
    await compaction
    // The writes above ran between slices: the compaction did not hold the loop throughout.
    expect(turns).toBeGreaterThan(1)
    expect(await reopened(crashCopy())).toEqual(state(store))
    const live = state(store)
    expect(live['u-1']).toMatchObject({ version: 1 })
    expect(live[`u-${total - 1}`]).toBeUndefined()
    await store.close()
    expect(await reopened(file)).toEqual(live)
  })

  it('writes the text of one JSON.stringify of the state, one row per line', async () => {
    const store = await Store.open({ file, seed, now: () => '2026-01-15T09:00:00.000Z' })
    for (let n = 1; n <= 500; n++) store.put('users', user(n))
    store.remove('users', 'u-7')
    await store.compact()
    const text = readFileSync(file, 'utf8')
    // JSON.stringify never writes a line break (not even inside a string: it escapes them).
    expect(text.replaceAll('\n', '')).toBe(JSON.stringify(store.export()))
    const lines = text.split('\n')
    expect(lines).toContain(`"u-1":${JSON.stringify(user(1))},`)
    expect(lines).toContain(`"u-500":${JSON.stringify(user(500))}`)
    expect(lines.filter((line) => line.startsWith('"u-'))).toHaveLength(499)
    await store.close()
  })
})
