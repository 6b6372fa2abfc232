import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { type CollectionsData, emptyCollections, type UserRow } from '../src/store/records.js'
import { DataFileError, SCHEMA_VERSION, SNAPSHOT_FORMAT } from '../src/store/snapshot-file.js'
import { readSnapshotLines } from '../src/store/snapshot-lines.js'
import { Store } from '../src/store/store.js'
import { bearer, registerAndLogin, setup, tempDirForTest } from './helpers.js'

// The data file is one JSON document with a row per line (snapshot-writer.ts), read a block of
// rows at a time (snapshot-lines.ts). A file of an earlier version (the same document on one
// line) or hand-edited still loads, through the whole-document parse.

let dir: string
let file: string
beforeEach(() => {
  dir = tempDirForTest('partner-sandbox-layout-')
  file = join(dir, 'sandbox.json')
})

const seed = (): CollectionsData => emptyCollections()
const user = (n: number, extra: Record<string, unknown> = {}) =>
  ({ id: `u-${n}`, email: `user${n}@example.com`, n, ...extra }) as unknown as UserRow

function docWith(users: UserRow[]) {
  const collections = emptyCollections()
  for (const u of users) collections.users[u.id] = u
  return {
    format: SNAPSHOT_FORMAT,
    schema_version: SCHEMA_VERSION,
    seq: 4,
    saved_at: 'x',
    collections,
  }
}

async function usersIn(path: string) {
  const store = await Store.open({ file: path, seed })
  const users = store.all('users')
  await store.close()
  return users
}

describe('data file layout', () => {
  it('loads a file of the previous version (one line) and rewrites it a row per line', async () => {
    const users = Array.from({ length: 50 }, (_, i) => user(i, { name: 'Zoë "Ω" \\n' }))
    writeFileSync(file, JSON.stringify(docWith(users)))
    expect(readSnapshotLines(file)).toBeUndefined()
    const store = await Store.open({ file, seed })
    expect(store.all('users')).toEqual(users)
    store.put('users', user(99))
    await store.close()
    // The graceful close compacted: now in the row-per-line layout, read by the line reader.
    expect(readFileSync(file, 'utf8').split('\n').length).toBeGreaterThan(50)
    expect(readSnapshotLines(file)?.collections.get('users')?.['u-99']).toEqual(user(99))
    expect(await usersIn(file)).toEqual([...users, user(99)])
  })

  it('reads rows spread over many blocks, and a row longer than a block', async () => {
    const store = await Store.open({ file, seed })
    const big = user(0, { blob: 'é'.repeat(1_500_000) })
    store.batch((w) => {
      w.put('users', big)
      for (let n = 1; n <= 6_000; n++) w.put('users', user(n, { pad: 'x'.repeat(300) }))
    })
    const expected = store.all('users')
    await store.close()
    const read = readSnapshotLines(file)
    expect(Object.keys(read?.collections.get('users') ?? {})).toHaveLength(6_001)
    expect(await usersIn(file)).toEqual(expected)
  })

  it('loads the same document pretty-printed (a hand-edited file)', async () => {
    const users = [user(1), user(2)]
    writeFileSync(file, JSON.stringify(docWith(users), null, 2))
    expect(await usersIn(file)).toEqual(users)
  })

  it('refuses a corrupt row line with a clear error and leaves the file untouched', async () => {
    const store = await Store.open({ file, seed })
    for (let n = 1; n <= 20; n++) store.put('users', user(n))
    await store.close()
    const text = readFileSync(file, 'utf8')
    const corrupt = text.replace('"u-7":{"id":"u-7"', '"u-7":{"id":"u-7",,')
    writeFileSync(file, corrupt)
    await expect(Store.open({ file, seed })).rejects.toThrow(DataFileError)
    await expect(Store.open({ file, seed })).rejects.toThrow(/sandbox\.json is not valid JSON/)
    expect(readFileSync(file, 'utf8')).toBe(corrupt)
    expect(existsSync(`${file}.journal`) ? readFileSync(`${file}.journal`, 'utf8') : '').toBe('')
  })

  it('refuses a row whose id is not its key, naming it', async () => {
    const store = await Store.open({ file, seed })
    for (let n = 1; n <= 5; n++) store.put('users', user(n))
    await store.close()
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('"u-3":{"id":"u-3"', '"u-3":{"id":"u-4"'),
    )
    await expect(Store.open({ file, seed })).rejects.toThrow(
      /not a partner-sandbox data file \(collections\.users\.u-3: expected a row whose id is its key\)/,
    )
  })

  it('refuses a file cut short (a missing end) instead of loading part of it', async () => {
    const store = await Store.open({ file, seed })
    for (let n = 1; n <= 30; n++) store.put('users', user(n))
    await store.close()
    const text = readFileSync(file, 'utf8')
    writeFileSync(file, text.slice(0, text.indexOf('"u-20"')))
    expect(readSnapshotLines(file)).toBeUndefined()
    await expect(Store.open({ file, seed })).rejects.toThrow(/is not valid JSON/)
  })
})

describe('data file read order', () => {
  it('hands each collection over as soon as it is read, partners before users', async () => {
    const store = await Store.open({ file, seed })
    store.put('partners', { id: 'p-1', name: 'P' } as never)
    for (let n = 1; n <= 3; n++) store.put('users', user(n))
    await store.close()
    const seen: [string, string[]][] = []
    const reopened = await Store.open({
      file,
      seed,
      onCollectionRead: (name, rows) => seen.push([name, Object.keys(rows)]),
    })
    expect(seen.map(([name]) => name).slice(0, 3)).toEqual(['meta', 'partners', 'users'])
    expect(seen[1]).toEqual(['partners', ['p-1']])
    expect(seen[2]).toEqual(['users', ['u-1', 'u-2', 'u-3']])
    await reopened.close()
  })
})

describe('rows read back from the data file', () => {
  it('take profile changes like any other row (metadata, addresses), and only their own', async () => {
    const data = join(dir, 'api.json')
    const first = await setup({ data })
    const alice = await registerAndLogin(first.call)
    const bob = await registerAndLogin(first.call)
    await first.sandbox.close()

    const { sandbox, call } = await setup({ data })
    const me = '/api/v1/partner/users/me'
    const patched = await call('PATCH', me, {
      headers: bearer(alice.token),
      body: { metadata: { plan: 'gold' }, secondary_address: { line1: '1 Main St' } },
    })
    expect(patched.status).toBe(200)
    const aliceRow = sandbox.store.get('users', alice.userId)
    const bobRow = sandbox.store.get('users', bob.userId)
    expect(aliceRow?.metadata).toEqual({ plan: 'gold' })
    expect(aliceRow?.secondary_address).toMatchObject({ line1: '1 Main St' })
    expect(bobRow?.metadata).toEqual({})
    expect(bobRow?.secondary_address).toEqual({})
    await sandbox.close()
    const again = await setup({ data })
    expect(again.sandbox.store.get('users', alice.userId)?.metadata).toEqual({ plan: 'gold' })
    expect(again.sandbox.store.get('users', bob.userId)?.metadata).toEqual({})
  })
})
