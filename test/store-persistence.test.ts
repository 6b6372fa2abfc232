import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSandbox, DataFileError } from '../src/index.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { type CollectionsData, emptyCollections, type UserRow } from '../src/store/records.js'
import { Store } from '../src/store/store.js'
import { acme, type Call, type Creds, setup, tempDirForTest } from './helpers.js'

let dir: string
let file: string
beforeEach(() => {
  dir = tempDirForTest('partner-sandbox-store-')
  file = join(dir, 'sandbox.json')
})

afterEach(() => {
  vi.restoreAllMocks()
})

const journalOf = (f: string) => `${f}.journal`
const readIf = (f: string) => (existsSync(f) ? readFileSync(f) : undefined)

/**
 * What a `kill -9` at this instant would leave on disk: a copy, taken synchronously (so no
 * journal append or compaction step of this process can interleave), of the data file and
 * its journals, in a fresh folder. The original store stays open and is never closed first.
 */
function crashCopy(from = file): string {
  const target = mkdtempSync(join(dir, 'crash-'))
  const to = join(target, 'sandbox.json')
  for (const suffix of ['', '.journal', '.journal.compacting']) {
    if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix)
  }
  return to
}

async function displayName(call: Call, creds: Creds = acme) {
  const res = await call('GET', '/api/v1/partner/me', { creds })
  expect(res.status).toBe(200)
  return res.json.partner.display_name as string
}

async function patchName(call: Call, name: string, creds: Creds = acme) {
  const res = await call('PATCH', '/api/v1/partner/me', { creds, body: { display_name: name } })
  expect(res.status).toBe(200)
  expect(res.json.partner.display_name).toBe(name)
}

/** Every file in `folder` with its bytes, to prove a refused data file was not touched. */
function folderState(folder: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(folder)
      .filter((f) => statSync(join(folder, f)).isFile())
      .sort()
      .map((f) => [f, readFileSync(join(folder, f)).toString('base64')]),
  )
}

describe('data file: acknowledged writes persist', () => {
  it('a PATCH /partner/me survives close() and reopen', async () => {
    const first = await setup({ data: file })
    expect(await displayName(first.call)).toBe(DEFAULT_PARTNER.display_name)
    await patchName(first.call, 'Acme After Restart')
    await first.sandbox.close()

    const second = await setup({ data: file })
    expect(await displayName(second.call)).toBe('Acme After Restart')
    // A graceful close folds the journal into the snapshot.
    expect(readFileSync(file, 'utf8')).toContain('Acme After Restart')
    expect(readIf(journalOf(file))?.length ?? 0).toBe(0)
  })

  it('a PATCH survives without close(): the journal is replayed on open', async () => {
    const first = await setup({ data: file })
    await patchName(first.call, 'Acme Journal Only')

    // The write is in the journal, not (yet) in the snapshot: only a replay can bring it back.
    expect(readFileSync(journalOf(file), 'utf8')).toContain('Acme Journal Only')
    expect(readFileSync(file, 'utf8')).not.toContain('Acme Journal Only')

    const crashed = crashCopy()
    const second = await setup({ data: crashed })
    expect(await displayName(second.call)).toBe('Acme Journal Only')
    // Opening folded the replayed journal into the snapshot of the copy.
    expect(readFileSync(crashed, 'utf8')).toContain('Acme Journal Only')

    // A second write after the replay is kept too, and a third open sees both effects.
    await patchName(second.call, 'Acme After Replay')
    const third = await setup({ data: crashCopy(crashed) })
    expect(await displayName(third.call)).toBe('Acme After Replay')
  })

  it('several writes in a row survive a crash, the last one wins', async () => {
    const first = await setup({ data: file })
    for (let i = 1; i <= 10; i++) await patchName(first.call, `Acme v${i}`)
    const second = await setup({ data: crashCopy() })
    expect(await displayName(second.call)).toBe('Acme v10')
  })
})

describe('data file: refused files are left untouched', () => {
  it('a corrupt JSON data file is refused with a DataFileError naming the file', async () => {
    const corrupt = '{"format":"partner-sandbox","schema_version":1,"seq":3,"collections":{"part'
    writeFileSync(file, corrupt)
    const before = folderState(dir)

    const error = await createSandbox({ data: file, logLevel: 'silent' }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(DataFileError)
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toMatch(/not valid JSON/)
    expect((error as Error).message).toMatch(/left untouched/)

    expect(readFileSync(file, 'utf8')).toBe(corrupt)
    // Nothing else was created or changed next to it either (no journal, no temp file).
    expect(folderState(dir)).toEqual(before)
  })

  it('a JSON file that is not a sandbox data file is refused and left untouched', async () => {
    const other = JSON.stringify({ name: 'some other app', version: 3 })
    writeFileSync(file, other)
    await expect(createSandbox({ data: file, logLevel: 'silent' })).rejects.toThrow(
      expect.objectContaining({
        name: 'DataFileError',
        message: expect.stringContaining(`${file} is not a partner-sandbox data file`),
      }),
    )
    expect(readFileSync(file, 'utf8')).toBe(other)
    expect(existsSync(journalOf(file))).toBe(false)
  })

  it('a data file of another schema version is refused with a clear message', async () => {
    // A real data file, as this version writes it, then marked as written by a future version.
    const writer = await setup({ data: file })
    await writer.sandbox.close()
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    expect(doc.schema_version).toBe(1)
    doc.schema_version = 2
    writeFileSync(file, JSON.stringify(doc))
    const before = folderState(dir)

    const error = await createSandbox({ data: file, logLevel: 'silent' }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(DataFileError)
    expect((error as Error).message).toBe(
      `${file} has schema version 2, but this sandbox reads version 1. It was left untouched; ` +
        'use a matching partner-sandbox version.',
    )
    expect(folderState(dir)).toEqual(before)
  })
})

describe('data file: the journal after a crash', () => {
  it('drops a torn last journal line, warns on stderr, and keeps the earlier writes', async () => {
    const first = await setup({ data: file })
    await patchName(first.call, 'Acme Before The Tear')
    const crashed = crashCopy()
    const journalBefore = readFileSync(journalOf(crashed), 'utf8')
    // A write cut off half-way by the crash: no newline, not valid JSON, never acknowledged.
    const torn = `{"s":2,"o":[["put","partners",{"id":"${DEFAULT_PARTNER.id}","display_name":"Tor`
    appendFileSync(journalOf(crashed), torn)

    // The log's lines as the sandbox writes them to stderr (stderr itself is written from a
    // buffer, off the event loop: log-destination.ts; test/log-flush.test.ts follows a line
    // there), caught through onLog.
    const stderr: string[] = []
    const onLog = (line: string) => stderr.push(line)
    const second = await setup({ data: crashed, logLevel: 'warn', onLog })

    const warnings = stderr.filter((line) => / warn {2}/.test(line))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('dropped a torn journal line')
    expect(warnings[0]).toContain(`${journalOf(crashed)} line 2`)
    expect(warnings[0]).toContain(`(${Buffer.byteLength(torn)} bytes)`)
    expect(await displayName(second.call)).toBe('Acme Before The Tear')
    expect(journalBefore).toContain('Acme Before The Tear')

    // The torn bytes are gone for good: the next open neither warns nor fails.
    await patchName(second.call, 'Acme After The Tear')
    await second.sandbox.close()
    stderr.length = 0
    const third = await setup({ data: crashed, logLevel: 'warn', onLog })
    expect(stderr.join('')).not.toContain('torn')
    expect(await displayName(third.call)).toBe('Acme After The Tear')
  })

  it('truncates a torn line so that later appends stay readable (Store.open)', async () => {
    const seed = () => emptyCollections()
    const store = await Store.open({ file, seed })
    store.put('users', user(1))
    await store.close()
    expect(readIf(journalOf(file))?.length ?? 0).toBe(0)

    // Only a torn line after a clean snapshot: nothing to replay, so no compaction at open.
    appendFileSync(journalOf(file), '{"s":2,"o":[["put","users",{"id":"u-')
    const warnings: string[] = []
    const reopened = await Store.open({ file, seed, onWarning: (m) => warnings.push(m) })
    expect(warnings).toEqual([
      expect.stringMatching(
        /^dropped a torn journal line \(.*\): .*sandbox\.json\.journal line 1 \(/,
      ),
    ])
    expect(readFileSync(journalOf(file), 'utf8')).toBe('')
    reopened.put('users', user(2))
    // No close: the next open must be able to read the journal appended after the truncation.
    const again = await Store.open({ file: crashCopy(), seed })
    expect(ids(again)).toEqual(['u-1', 'u-2'])
    await again.close()
    await reopened.close()
  })

  it('refuses a corrupt line in the middle of the journal and changes nothing', async () => {
    const first = await setup({ data: file })
    await patchName(first.call, 'Acme One')
    await patchName(first.call, 'Acme Two')
    const crashed = crashCopy()
    const lines = readFileSync(journalOf(crashed), 'utf8').split('\n')
    expect(lines).toHaveLength(3) // two entries and the empty string after the last newline
    writeFileSync(journalOf(crashed), [lines[0], 'this is not json', lines[1], ''].join('\n'))
    const folder = join(crashed, '..')
    const before = folderState(folder)

    const error = await createSandbox({ data: crashed, logLevel: 'silent' }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(DataFileError)
    expect((error as Error).message).toContain(`${journalOf(crashed)} line 2 is corrupt`)
    expect((error as Error).message).toMatch(/left untouched/)
    expect(folderState(folder)).toEqual(before)
  })
})

function user(n: number): UserRow {
  return { id: `u-${n}`, email: `user${n}@example.com`, n } as unknown as UserRow
}
const ids = (store: Store) =>
  store
    .all('users')
    .map((u) => u.id)
    .sort((a, b) => Number(a.slice(2)) - Number(b.slice(2)))

describe('data file: compaction', () => {
  it('keeps the journal no larger than the snapshot, and loses nothing at any instant', async () => {
    const seed = (): CollectionsData => emptyCollections()
    const compactAfterBytes = 512
    const store = await Store.open({ file, seed, compactAfterBytes })
    const total = 300
    let appended = 0
    for (let n = 1; n <= total; n++) {
      store.put('users', user(n))
      appended += Buffer.byteLength(`${JSON.stringify({ s: n, o: [['put', 'users', user(n)]] })}\n`)
      // Let compactions in flight make progress between writes.
      await new Promise((resolve) => setImmediate(resolve))
      if (n % 37 === 0) {
        // What a crash right now would leave behind holds exactly the writes made so far.
        const crashed = await Store.open({ file: crashCopy(), seed })
        expect(crashed.all('users')).toHaveLength(n)
        await crashed.close()
      }
    }
    // Let the compaction the last writes may have started finish (bounded: no timers).
    for (let i = 0; i < 10_000 && existsSync(`${journalOf(file)}.compacting`); i++)
      await new Promise((resolve) => setImmediate(resolve))
    expect(existsSync(`${journalOf(file)}.compacting`)).toBe(false)

    const snapshot = JSON.parse(readFileSync(file, 'utf8'))
    const journal = readFileSync(journalOf(file), 'utf8')
    const journalLines = journal.split('\n').filter(Boolean)
    // Compaction ran during the writes, not only at close...
    expect(snapshot.seq).toBeGreaterThan(0)
    expect(Object.keys(snapshot.collections.users)).toHaveLength(snapshot.seq)
    // ...the journal holds exactly the writes after the snapshot...
    expect(journalLines.map((line) => JSON.parse(line).s)).toEqual(
      Array.from({ length: total - snapshot.seq }, (_, i) => snapshot.seq + i + 1),
    )
    // ...and it is never larger than the snapshot (or the configured floor).
    expect(Buffer.byteLength(journal)).toBeLessThanOrEqual(
      Math.max(compactAfterBytes, statSync(file).size),
    )
    expect(Buffer.byteLength(journal)).toBeLessThan(appended)

    // Reopen without close (a crash), then after a graceful close: every row, in order.
    const crashed = await Store.open({ file: crashCopy(), seed })
    expect(ids(crashed)).toEqual(Array.from({ length: total }, (_, i) => `u-${i + 1}`))
    await crashed.close()
    await store.close()
    const reopened = await Store.open({ file, seed, compactAfterBytes })
    expect(ids(reopened)).toEqual(Array.from({ length: total }, (_, i) => `u-${i + 1}`))
    expect(reopened.get('users', 'u-300')).toEqual(user(300))
    expect(statSync(journalOf(file)).size).toBe(0)
    expect(existsSync(`${journalOf(file)}.compacting`)).toBe(false)
    await reopened.close()
  })
})

describe('data file: control plane changes are durable', () => {
  it('POST /_sandbox/reset survives a reopen, with and without close()', async () => {
    const first = await setup({ data: file })
    await patchName(first.call, 'Acme Before Reset')
    const created = await first.call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'Reset Victim' },
    })
    expect(created.status).toBe(201)
    const res = await first.call('POST', '/_sandbox/reset', { creds: null })
    expect(res.status).toBe(200)

    const crashed = await setup({ data: crashCopy() })
    expect(await displayName(crashed.call)).toBe(DEFAULT_PARTNER.display_name)
    const partners = await crashed.call('GET', '/_sandbox/partners', { creds: null })
    expect(partners.json.data.map((p: { name: string }) => p.name)).not.toContain('Reset Victim')

    await first.sandbox.close()
    const reopened = await setup({ data: file })
    expect(await displayName(reopened.call)).toBe(DEFAULT_PARTNER.display_name)
    const after = await reopened.call('GET', '/_sandbox/partners', { creds: null })
    expect(after.json.data.map((p: { name: string }) => p.name)).not.toContain('Reset Victim')
  })

  it('POST /_sandbox/snapshot (restore) survives a reopen, with and without close()', async () => {
    const first = await setup({ data: file })
    await patchName(first.call, 'Acme Saved State')
    const exported = await first.call('GET', '/_sandbox/snapshot', { creds: null })
    expect(exported.status).toBe(200)
    await patchName(first.call, 'Acme Later State')
    const restored = await first.call('POST', '/_sandbox/snapshot', {
      creds: null,
      body: exported.json,
    })
    expect(restored.status).toBe(200)
    expect(await displayName(first.call)).toBe('Acme Saved State')

    const crashed = await setup({ data: crashCopy() })
    expect(await displayName(crashed.call)).toBe('Acme Saved State')

    await first.sandbox.close()
    const reopened = await setup({ data: file })
    expect(await displayName(reopened.call)).toBe('Acme Saved State')
  })
})

describe('data file: secrets', () => {
  it('never holds a plain API secret, in the snapshot or the journal', async () => {
    const first = await setup({ data: file })
    const created = await first.call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'Secretive Co' },
    })
    expect(created.status).toBe(201)
    const initial: Creds = { key: created.json.api_key, secret: created.json.api_secret }
    expect(initial.secret).toMatch(/^sk_test_/)
    expect(await displayName(first.call, initial)).toBe('Secretive Co')

    const rotated = await first.call('POST', '/api/v1/partner/me/rotate-api-key', {
      creds: initial,
    })
    expect(rotated.status).toBe(200)
    const next: Creds = { key: rotated.json.api_key, secret: rotated.json.api_secret }
    expect(next.secret).toMatch(/^sk_test_/)
    expect(next.secret).not.toBe(initial.secret)

    const secrets = [initial.secret, next.secret, DEFAULT_PARTNER.api_secret]
    const onDisk = () =>
      ['', '.journal', '.journal.compacting']
        .map((suffix) => readIf(file + suffix)?.toString('utf8') ?? '')
        .join('\n')
    // Before close the new rows live in the journal; they must hold hashes only.
    expect(readFileSync(journalOf(file), 'utf8')).toContain(next.key)
    for (const secret of secrets) expect(onDisk()).not.toContain(secret)

    await first.sandbox.close()
    expect(readFileSync(file, 'utf8')).toContain(next.key)
    for (const secret of secrets) expect(onDisk()).not.toContain(secret)

    // And the hashes on disk are the real thing: the rotated pair works after a reopen.
    const reopened = await setup({ data: file })
    expect(await displayName(reopened.call, next)).toBe('Secretive Co')
    const old = await reopened.call('GET', '/api/v1/partner/me', { creds: initial })
    expect(old.status).toBe(401)
  })
})

describe('data files that cannot be used are refused with a message', () => {
  it('a data file in a missing folder, or a folder, is a DataFileError naming it', async () => {
    const missing = join(tmpdir(), `no-such-dir-${Date.now()}`, 'x.json')
    await expect(createSandbox({ data: missing, logLevel: 'silent' })).rejects.toBeInstanceOf(
      DataFileError,
    )
    await expect(createSandbox({ data: missing, logLevel: 'silent' })).rejects.toThrow(missing)
    const dir = tempDirForTest('dir-as-data-')
    await expect(createSandbox({ data: dir, logLevel: 'silent' })).rejects.toThrow(
      /cannot use data file/,
    )
  })

  it('a journal line that is JSON but not an entry is treated as corrupt', async () => {
    const dir = tempDirForTest('bad-entry-')
    const data = join(dir, 'sandbox.json')
    const first = await createSandbox({ data, logLevel: 'silent' })
    await first.close()
    writeFileSync(`${data}.journal`, '{}\n{"s":99,"o":[]}\n')
    await expect(createSandbox({ data, logLevel: 'silent' })).rejects.toBeInstanceOf(DataFileError)
    expect(readFileSync(`${data}.journal`, 'utf8')).toBe('{}\n{"s":99,"o":[]}\n')
  })
})
