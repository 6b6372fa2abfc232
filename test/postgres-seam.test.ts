import postgres from 'postgres'
import { afterEach, expect, it, vi } from 'vitest'
import { MemoryState } from '../src/state/memory-state.js'
import { layouts } from '../src/state/postgres/layout.js'
import { migrate } from '../src/state/postgres/migrate.js'
import { migrations } from '../src/state/postgres/migrations.js'
import { PostgresState, parseDatabaseUrl } from '../src/state/postgres/postgres-state.js'
import { batchUpsertOf, indexSql } from '../src/state/postgres/statements.js'
import type { StateTx } from '../src/state/seam.js'
import { defineIndexes } from '../src/store/indexes.js'
import {
  type CollectionsData,
  type DeliveryRow,
  emptyCollections,
  type UserRow,
} from '../src/store/records.js'
import type { TransactionRow } from '../src/store/records-money.js'
import type { SinkRequestRow } from '../src/store/records-sinks.js'
import { Store } from '../src/store/store.js'
import { describePostgres, freshDatabaseUrl } from './postgres.js'

// The state seam's PostgreSQL engine, against a real server: transactions whose writers never
// interleave (SERIALIZABLE, run again on a conflict), all-or-nothing commits, indexes in the
// memory engine's order, and replicas on one database that see each other's commits.

const opened: PostgresState[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((state) => state.close()))
})

async function open(
  url = freshDatabaseUrl(),
  seed: () => CollectionsData = emptyCollections,
  gapWaitMs?: number,
) {
  const state = await PostgresState.open({ url, seed, gapWaitMs })
  opened.push(state)
  return state
}

const user = (n: number, partner = 'p1') =>
  ({ id: `u-${n}`, partner_id: partner, email: `user${n}@example.com` }) as unknown as UserRow
const txn = (n: number, userId: string, at: string) =>
  ({ id: `t-${n}`, partner_id: 'p1', user_id: userId, created_at: at }) as unknown as TransactionRow
const delivery = (id: string, next: string | null) =>
  ({
    id,
    partner_id: 'p1',
    webhook_id: 'wh_1',
    status: next ? 'pending' : 'succeeded',
    next_attempt_at: next,
    completed_at: next ? null : '2031-01-01T00:00:00.000Z',
    created_at: '2031-01-01T00:00:00.000Z',
  }) as unknown as DeliveryRow

/**
 * A database as an older build left it: `state` (on `url`) is closed, then `undo` runs on its
 * schema in one transaction. Answers a connection to the server and the schema's name.
 */
async function undoMigration(
  state: PostgresState,
  url: string,
  undo: (tx: postgres.TransactionSql) => Promise<void>,
) {
  await state.close()
  opened.splice(opened.indexOf(state), 1)
  const { url: plain, schema } = parseDatabaseUrl(url)
  const sql = postgres(plain, { onnotice: () => {} })
  try {
    await sql.begin(async (tx) => {
      await tx.unsafe(`SET LOCAL search_path TO "${schema}"`)
      await undo(tx)
    })
  } catch (error) {
    await sql.end()
    throw error
  }
  return { sql, schema }
}

/** A node of EXPLAIN's JSON plan, as far as the tests read it. */
interface PlanNode {
  'Relation Name'?: string
  'Actual Rows': number
  'Actual Loops': number
  Plans?: PlanNode[]
}

/** Each table's unique indexes: whether primary, and their columns in order. */
async function uniqueIndexes(sql: postgres.Sql, schema: string) {
  return sql<{ table: string; primary: boolean; columns: string[] }[]>`
    SELECT c.relname AS table, i.indisprimary AS primary,
      array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
    FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
    JOIN pg_namespace ns ON ns.oid = c.relnamespace
    WHERE ns.nspname = ${schema} AND i.indisunique`
}

/** What distributing by partner (Citus) asks of the tables: see layout.ts partnerCollections. */
async function expectTenantKeys(sql: postgres.Sql, schema: string) {
  const unique = await uniqueIndexes(sql, schema)
  for (const layout of Object.values(layouts)) {
    const mine = unique.filter((u) => u.table === layout.table)
    const key = layout.byPartner ? ['partner_id', 'id'] : ['id']
    expect(mine, layout.table).toEqual([{ table: layout.table, primary: true, columns: key }])
  }
}

describePostgres('state seam, PostgreSQL engine', () => {
  it('serializes writers: 100 read-modify-writes with awaits between are all counted', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('users', { ...user(1), count: 0 } as never))
    await Promise.all(
      Array.from({ length: 100 }, () =>
        state.transaction(async (tx) => {
          const row = (await tx.get('users', 'u-1')) as unknown as { count: number }
          await tx.lookup('users_by_partner', 'p1')
          tx.put('users', { ...row, count: row.count + 1 } as never)
        }),
      ),
    )
    const row = (await state.get('users', 'u-1')) as unknown as { count: number }
    expect(row.count).toBe(100)
  })

  it('two replicas on one database never lose a write between them', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    await a.transaction(async (tx) => tx.put('users', { ...user(1), count: 0 } as never))
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        (i % 2 ? a : b).transaction(async (tx) => {
          const row = (await tx.get('users', 'u-1')) as unknown as { count: number }
          tx.put('users', { ...row, count: row.count + 1 } as never)
        }),
      ),
    )
    expect(((await b.get('users', 'u-1')) as unknown as { count: number }).count).toBe(60)
  })

  it('a row read again in a transaction is the one it last read or wrote there', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('users', user(1)))
    const seen = await state.transaction(async (tx) => {
      const first = await tx.get('users', 'u-1')
      const again = await tx.get('users', 'u-1')
      tx.put('users', { ...user(1), email: 'changed@example.com' })
      const written = await tx.get('users', 'u-1')
      tx.remove('users', 'u-1')
      const removed = await tx.get('users', 'u-1')
      tx.put('users', { ...user(1), email: 'back@example.com' })
      const back = await tx.get('users', 'u-1')
      return [first === again, written?.email, removed, back?.email]
    })
    expect(seen).toEqual([true, 'changed@example.com', undefined, 'back@example.com'])
    expect((await state.get('users', 'u-1'))?.email).toBe('back@example.com')
  })

  it('rolls every write of a transaction that throws back, indexes included', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('users', user(1)))
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(2))
        tx.put('users', { ...user(1), email: 'changed@example.com' })
        tx.remove('users', 'u-1')
        expect(await tx.get('users', 'u-2')).toBeDefined()
        expect(await tx.get('users', 'u-1')).toBeUndefined()
        throw new Error('no')
      }),
    ).rejects.toThrow('no')
    expect(await state.get('users', 'u-2')).toBeUndefined()
    expect((await state.get('users', 'u-1'))?.email).toBe('user1@example.com')
    expect((await state.lookup('users_by_partner', 'p1')).map((u) => u.id)).toEqual(['u-1'])
    expect(await state.lookupOne('users_by_email', 'changed@example.com')).toBeUndefined()
  })

  it('a transaction that only reads leaves the version alone; a commit moves the key version', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('transactions', txn(1, 'u-1', '2026-01-01')))
    const version = state.version
    const key = state.keyVersion('transactions_by_user', 'u-1')
    await state.transaction(async (tx) => tx.range('transactions_by_user', 'u-1', { limit: 5 }))
    expect(state.version).toBe(version)
    await state.transaction(async (tx) => tx.put('transactions', txn(2, 'u-1', '2026-01-02')))
    expect(state.keyVersion('transactions_by_user', 'u-1')).toBeGreaterThan(key)
    expect(state.keyVersion('transactions_by_user', 'u-2')).toBeLessThan(
      state.keyVersion('transactions_by_user', 'u-1'),
    )
    const before = state.keyVersion('transactions_by_user', 'u-1')
    await state.transaction(async (tx) => tx.remove('transactions', 't-1'))
    expect(state.keyVersion('transactions_by_user', 'u-1')).toBeGreaterThan(before)
  })

  it('pages an ordered index as the memory engine does: time order, ties as added, cursors', async () => {
    const state = await open()
    await state.transaction(async (tx) => {
      tx.put('transactions', txn(1, 'u-1', '2026-01-02'))
      tx.put('transactions', txn(2, 'u-1', '2026-01-03'))
      // Dated earlier (a clock moved back): takes its place in time, not at the end.
      tx.put('transactions', txn(3, 'u-1', '2026-01-01'))
      tx.put('transactions', txn(4, 'u-1', '2026-01-02'))
      tx.put('transactions', txn(5, 'u-2', '2026-01-02'))
    })
    const ids = async (options: Parameters<typeof state.range>[2]) =>
      (await state.range('transactions_by_user', 'u-1', options)).map((t) => t.id)
    expect(await ids({})).toEqual(['t-3', 't-1', 't-4', 't-2'])
    expect(await ids({ reverse: true, limit: 2 })).toEqual(['t-2', 't-4'])
    expect(await ids({ reverse: true, after: 't-4' })).toEqual(['t-1', 't-3'])
    expect(await ids({ after: 't-1', limit: 1 })).toEqual(['t-4'])
    // A cursor naming a row of another key gives nothing, as in memory.
    expect(await ids({ after: 't-5' })).toEqual([])
    expect(await state.count('transactions_by_user', 'u-1')).toBe(4)
    expect(await state.has('transactions_by_user', 'u-2', 't-5')).toBe(true)
    expect(await state.has('transactions_by_user', 'u-1', 't-5')).toBe(false)
    // Written again unchanged, a row keeps its place; moved in time, it moves.
    await state.transaction(async (tx) => {
      tx.put('transactions', { ...txn(1, 'u-1', '2026-01-02'), amount: 1 } as never)
      tx.put('transactions', txn(3, 'u-1', '2026-01-05'))
    })
    expect(await ids({})).toEqual(['t-1', 't-4', 't-2', 't-3'])
    expect(await state.keys('transactions_by_user')).toEqual(['u-1', 'u-2'])
  })

  it('afterCommit runs after a commit, never after a rollback; listeners hear committed rows', async () => {
    const state = await open()
    const heard: string[] = []
    state.onCommit((changes) => heard.push(...changes.map((c) => `${c.collection}:${c.id}`)))
    const ran: string[] = []
    await state.transaction(async (tx) => {
      tx.put('users', user(1))
      tx.afterCommit(() => ran.push('first'))
    })
    await state
      .transaction(async (tx) => {
        tx.put('users', user(2))
        tx.afterCommit(() => ran.push('second'))
        throw new Error('no')
      })
      .catch(() => {})
    expect(ran).toEqual(['first'])
    expect(heard).toEqual(['users:u-1'])
  })

  it('a failed write fails its transaction with the database error, and commits nothing', async () => {
    const state = await open()
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(1))
        // A NUL byte: text the database refuses.
        tx.put('users', { ...user(2), partner_id: 'p\u0000' })
      }),
    ).rejects.toThrow()
    expect(await state.all('users')).toEqual([])
  })

  it('keeps committed rows for the next start; seeds a new database once', async () => {
    const url = freshDatabaseUrl()
    const seed = () => ({ ...emptyCollections(), users: { 'u-9': user(9) } })
    const state = await open(url, seed)
    await state.transaction(async (tx) => tx.put('users', user(1)))
    await state.close()
    opened.splice(opened.indexOf(state), 1)
    const again = await open(url, seed)
    expect((await again.all('users')).map((u) => u.id)).toEqual(['u-9', 'u-1'])
    await again.reset()
    expect((await again.all('users')).map((u) => u.id)).toEqual(['u-9'])
  })

  it('putEphemeral writes at once, moves no version, is heard by no listener', async () => {
    const state = await open()
    const heard: string[] = []
    state.onCommit((changes) => heard.push(...changes.map((c) => c.id)))
    const version = state.version
    const slot = (slot: number, n: number, partner = 'p1') =>
      ({
        id: `jrn_${slot}`,
        seq: String(n).padStart(3, '0'),
        entry: { id: `req_${n}`, partner_id: partner },
      }) as never
    await state.putEphemeral('request_journal', slot(0, 1))
    await state.putEphemeral('request_journal', slot(1, 2, 'p2'))
    await state.putEphemeral('request_journal', slot(0, 3))
    const ids = async (partner: string) =>
      (await state.range('journal_by_partner', partner, { reverse: true })).map((r) => r.entry.id)
    expect(await ids('p1')).toEqual(['req_3'])
    await state.putEphemeral('request_journal', slot(1, 4))
    expect(await ids('p1')).toEqual(['req_4', 'req_3'])
    expect(await state.count('journal_by_partner', 'p2')).toBe(0)
    expect(state.version).toBe(version)
    expect(heard).toEqual([])
    await expect(state.putEphemeral('users', user(1))).rejects.toThrow('users is not ephemeral')
  })

  it('putEphemerals writes a row of each ephemeral collection in one statement, or none', async () => {
    const state = await open()
    const entry = (n: number) =>
      ({ id: `jrn_${n}`, seq: `00${n}`, entry: { id: `req_${n}`, partner_id: 'p1' } }) as never
    const capture = (n: number) => ({ id: `jrn_${n}`, seq: `00${n}`, capture: null }) as never
    await state.putEphemerals([
      { collection: 'request_journal', row: entry(1) },
      { collection: 'request_captures', row: capture(1) },
    ])
    expect((await state.get('request_journal', 'jrn_1'))?.entry.id).toBe('req_1')
    expect((await state.get('request_captures', 'jrn_1'))?.seq).toBe('001')
    // A durable collection among them: refused before anything is written.
    await expect(
      state.putEphemerals([
        { collection: 'request_journal', row: entry(2) },
        { collection: 'users', row: user(2) },
      ]),
    ).rejects.toThrow('users is not ephemeral')
    expect(await state.get('request_journal', 'jrn_2')).toBeUndefined()
  })

  it('ephemeral puts made while one is on its way are written together, each row as last put', async () => {
    const state = await open()
    // What JSON and array literals both have to get right.
    const note = 'a "quote", a \\ backslash, {braces}, NULL, null, é, \u2028, \u0000'
    const entry = (slot: number, n: number) =>
      ({
        id: `jrn_${slot}`,
        seq: String(n).padStart(3, '0'),
        entry: { id: `req_${n}`, partner_id: n % 2 ? 'p1' : 'p2', note },
      }) as never
    const capture = (slot: number, n: number) =>
      ({ id: `jrn_${slot}`, seq: String(n).padStart(3, '0'), capture: null }) as never
    // 50 requests over 20 slots, none awaited before the next: they share statements.
    await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        state.putEphemerals([
          { collection: 'request_journal', row: entry(n % 20, n) },
          { collection: 'request_captures', row: capture(n % 20, n) },
        ]),
      ),
    )
    const newest = (slot: number) => (slot < 10 ? 40 + slot : 20 + slot)
    for (let slot = 0; slot < 20; slot++) {
      const row = await state.get('request_journal', `jrn_${slot}`)
      expect(row?.entry.id).toBe(`req_${newest(slot)}`)
      expect((row?.entry as unknown as { note: string } | undefined)?.note).toBe(note)
      expect((await state.get('request_captures', `jrn_${slot}`))?.seq).toBe(
        String(newest(slot)).padStart(3, '0'),
      )
    }
    // Each partner's index holds its newest rows only, newest first.
    const ids = async (partner: string) =>
      (await state.range('journal_by_partner', partner, { reverse: true })).map((r) => r.entry.id)
    expect(await ids('p1')).toEqual([49, 47, 45, 43, 41, 39, 37, 35, 33, 31].map((n) => `req_${n}`))
    expect(await ids('p2')).toEqual([48, 46, 44, 42, 40, 38, 36, 34, 32, 30].map((n) => `req_${n}`))
    expect(await state.count('journal_by_partner', 'p1')).toBe(10)
    // The statement's text depends on the collections alone: prepared once, whatever the rows.
    const text = batchUpsertOf(['request_captures', 'request_journal'])
    expect(text).toMatch(
      /^WITH w0 AS \(INSERT INTO request_captures .*unnest\(.*\) INSERT INTO request_journal /,
    )
    const numbers = [...new Set([...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))]
    expect(numbers.sort((a, b) => a - b)).toEqual(numbers.map((_, i) => i + 1))
  })

  it('a replace keeps the traffic, empties the other ephemeral rows, brings none back', async () => {
    const state = await open()
    await state.putEphemeral('request_journal', {
      id: 'jrn_0',
      seq: '001',
      entry: { id: 'req_1', partner_id: 'p1' },
    } as never)
    await state.transaction(async (tx) =>
      tx.put('clocks', { id: 'sandbox', offset_ms: 5, frozen_at: null }),
    )
    const doc = await state.export()
    expect(doc.collections.clocks).toEqual({})
    await state.replaceAll({ ...doc.collections, users: { 'u-1': user(1) } })
    expect((await state.all('users')).map((u) => u.id)).toEqual(['u-1'])
    expect(await state.all('clocks')).toEqual([])
    expect((await state.all('request_journal')).map((r) => r.id)).toEqual(['jrn_0'])
  })

  it('a replace that loses a deadlock to a transaction holding a table it empties is run again', async () => {
    const url = freshDatabaseUrl()
    const state = await open(url)
    await state.transaction(async (tx) => tx.put('users', user(1)))
    const { url: plain, schema } = parseDatabaseUrl(url)
    const sql = postgres(plain, { onnotice: () => {}, max: 2 })
    try {
      // Waits on `events` (the TRUNCATE takes its tables one after another: partners, then
      // events) while holding partners.
      const replaceWaits = async () => {
        for (;;) {
          const [waiting] = await sql<{ n: number }[]>`
            SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
            JOIN pg_namespace ns ON ns.oid = c.relnamespace
            WHERE NOT l.granted AND c.relname = 'events' AND ns.nspname = ${schema}`
          if ((waiting?.n ?? 0) > 0) return
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
      let replaced: Promise<void> | undefined
      // A transaction (a sweep, say) that read events, then reads partners: a cycle with the
      // replace, which PostgreSQL breaks by failing the replace (it waited first).
      await sql.begin(async (tx) => {
        await tx.unsafe(`SET LOCAL search_path TO "${schema}"`)
        await tx.unsafe('SELECT 1 FROM events LIMIT 1')
        replaced = state.replaceAll({ ...emptyCollections(), users: { 'u-2': user(2) } })
        replaced.catch(() => {})
        await replaceWaits()
        await tx.unsafe('SELECT 1 FROM partners LIMIT 1')
      })
      await replaced
      expect((await state.all('users')).map((u) => u.id)).toEqual(['u-2'])
    } finally {
      await sql.end()
    }
  })

  it("replicas see each other's commits: key versions move, a replace is heard", async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    const key = b.keyVersion('overrides_by_partner', 'p1')
    const version = b.version
    let replaced = 0
    b.onReplace(() => replaced++)
    await a.transaction(async (tx) =>
      tx.put('overrides', { id: 'ovr_1', partner_id: 'p1' } as never),
    )
    await expect.poll(() => b.keyVersion('overrides_by_partner', 'p1')).toBeGreaterThan(key)
    expect(b.version).toBeGreaterThan(version)
    expect(b.keyVersion('overrides_by_partner', 'p2')).toBeLessThanOrEqual(key)
    await a.reset()
    await expect.poll(() => replaced).toBe(1)
  })

  it("replicas hear each other's commits of shared collections, with the rows as they stand", async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    const heard: string[] = []
    b.onCommit((changes) =>
      heard.push(...changes.map((c) => `${c.collection}:${c.id}:${c.row ? 'row' : 'gone'}`)),
    )
    await a.transaction(async (tx) => {
      tx.put('webhooks', { id: 'wh_1', partner_id: 'p1' } as never)
      tx.put('users', user(1))
    })
    await a.transaction(async (tx) => tx.remove('webhooks', 'wh_1'))
    // Users are read when needed, not copied: their commits move versions, not listeners. The
    // first commit is heard with the row as it stood when read (there, or removed already).
    await expect.poll(() => heard.length).toBe(2)
    expect(heard[0]).toMatch(/^webhooks:wh_1:(row|gone)$/)
    expect(heard[1]).toBe('webhooks:wh_1:gone')
  })

  it('catchUp: once it resolves, every commit made before it was heard, rows included', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    const heard: string[] = []
    b.onCommit((changes) => heard.push(...changes.map((c) => c.id)))
    for (let i = 0; i < 5; i++) {
      const key = b.keyVersion('overrides_by_partner', `p${i}`)
      await a.transaction(async (tx) => {
        tx.put('overrides', { id: `ovr_${i}`, partner_id: `p${i}` } as never)
        tx.put('events', {
          id: `evt_${i}`,
          partner_id: `p${i}`,
          created_at: '2026-01-01T00:00:00.000Z',
        } as never)
      })
      // No polling: the next read through b, after catchUp, knows of the commit.
      await b.catchUp()
      expect(b.keyVersion('overrides_by_partner', `p${i}`)).toBeGreaterThan(key)
      expect(heard).toContain(`evt_${i}`)
    }
    // Nothing to wait for: it resolves at once, and so does the memory engine's (undefined).
    await b.catchUp()
  })

  // The two below wait for a number with no give-up in sight (10 minutes): they end only if
  // the number is accounted for as it should be, and fail on the test timeout otherwise.
  const NEVER = 600_000
  const AT = '2026-01-01T00:00:00.000Z'

  /** Two replicas on a new schema that never give a number up, and a plain connection to it. */
  async function replicasNeverGivingUp() {
    const url = freshDatabaseUrl()
    const a = await open(url, emptyCollections, NEVER)
    const b = await open(url, emptyCollections, NEVER)
    const { url: plain, schema } = parseDatabaseUrl(url)
    return { a, b, schema, sql: postgres(plain, { max: 1, onnotice: () => {} }) }
  }

  it('catchUp waits for a commit numbered below one already heard (notices out of order)', async () => {
    const { a, b, sql, schema } = await replicasNeverGivingUp()
    try {
      // A third replica's transaction has taken its number and not committed yet.
      const [taken] = await sql.unsafe(`SELECT nextval('"${schema}".sandbox_commits') AS n`)
      const heardLater = new Promise<void>((resolve) => b.onCommit(() => resolve()))
      await a.transaction(async (tx) =>
        tx.put('events', { id: 'evt_1', partner_id: 'p1', created_at: AT } as never),
      )
      let current = false
      const caughtUp = b.catchUp().then(() => {
        current = true
      })
      await heardLater
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
      // b heard the later commit, yet the earlier one may still bring rows: not current.
      expect(current).toBe(false)
      // That transaction failed: its replica says the number will never come.
      const gap = JSON.stringify({ r: 'third', n: Number(taken?.n), gap: 1 })
      await sql`SELECT pg_notify(${`partner_sandbox_${schema}`}, ${gap})`
      await caughtUp
      expect(current).toBe(true)
    } finally {
      await sql.end()
    }
  }, 20_000)

  // Refused at COMMIT (a deferred trigger), or as the last write runs (an AFTER trigger fires
  // once the statement carrying the notice has run): either way after the number was taken.
  it.each([
    ['a commit', 'CONSTRAINT TRIGGER refuse AFTER INSERT', 'DEFERRABLE INITIALLY DEFERRED'],
    ['a last write', 'TRIGGER refuse AFTER INSERT', ''],
  ])(
    '%s that fails after taking its number tells every replica not to wait for it',
    async (_, trigger, deferred) => {
      const { a, b, sql, schema } = await replicasNeverGivingUp()
      try {
        await sql.unsafe(`
        CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
        CREATE ${trigger} ON "${schema}".events ${deferred}
          FOR EACH ROW WHEN (NEW.id = 'evt_refused') EXECUTE FUNCTION "${schema}".refuse();`)
        await expect(
          a.transaction(async (tx) =>
            tx.put('events', { id: 'evt_refused', partner_id: 'p1', created_at: AT } as never),
          ),
        ).rejects.toThrow(/refused/)
        const [taken] = await sql.unsafe(`SELECT is_called FROM "${schema}".sandbox_commits`)
        expect(taken?.is_called).toBe(true)
        // Nothing else was committed: both end at once only because the number was announced.
        await Promise.all([a.catchUp(), b.catchUp()])
        expect(await b.get('events', 'evt_refused')).toBeUndefined()
      } finally {
        await sql.end()
      }
    },
    20_000,
  )

  it('a number lost for good is given up once a thousand later ones were heard, waited for or not', async () => {
    const url = freshDatabaseUrl()
    const b = await open(url, emptyCollections, NEVER)
    const { url: plain, schema } = parseDatabaseUrl(url)
    const sql = postgres(plain, { max: 1, onnotice: () => {} })
    try {
      // One number whose notice never comes, then 1,001 announced (as gaps: no rows to fetch).
      const taken = await sql.unsafe(
        `SELECT nextval('"${schema}".sandbox_commits') AS n FROM generate_series(1, 1002)`,
      )
      const later = taken.slice(1).map(({ n }) => String(n))
      await sql`
        SELECT pg_notify(${`partner_sandbox_${schema}`},
          json_build_object('r', 'x', 'n', n, 'gap', 1)::text)
        FROM unnest(${later}::bigint[]) AS n`
      // Without a bound, b would keep all 1,001 and wait 10 minutes here.
      await b.catchUp()
    } finally {
      await sql.end()
    }
  }, 20_000)

  it('a row that leaves a versioned key moves that key too, here and on other replicas', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    await a.transaction(async (tx) =>
      tx.put('partners', { id: 'p1', api_key: 'pk_test_old' } as never),
    )
    await b.catchUp()
    const [hereBefore, thereBefore] = [a, b].map((s) =>
      s.keyVersion('partners_by_api_key', 'pk_test_old'),
    )
    // A rotation: the row takes a new key and leaves the old one.
    await a.transaction(async (tx) =>
      tx.put('partners', { id: 'p1', api_key: 'pk_test_new' } as never),
    )
    await b.catchUp()
    expect(a.keyVersion('partners_by_api_key', 'pk_test_old')).toBeGreaterThan(hereBefore as number)
    expect(b.keyVersion('partners_by_api_key', 'pk_test_old')).toBeGreaterThan(
      thereBefore as number,
    )
    // A remove's key is answered by its own statement: the notice, sent after, names it too.
    const removedBefore = b.keyVersion('partners_by_api_key', 'pk_test_new')
    await a.transaction(async (tx) => tx.remove('partners', 'p1'))
    await b.catchUp()
    expect(b.keyVersion('partners_by_api_key', 'pk_test_new')).toBeGreaterThan(removedBefore)
  })

  it('a notice the keys its rows left make too long for NOTIFY says everything changed', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    const partners = (key: string) => async (tx: StateTx) => {
      for (let n = 0; n < 100; n++)
        tx.put('partners', { id: `p${n}`, api_key: `pk_test_${key}_${n}` } as never)
    }
    await a.transaction(partners('old'))
    await b.catchUp()
    const before = b.keyVersion('partners_by_api_key', 'pk_test_old_7')
    // 100 keys taken fit a notice; with the 100 they left, added by the database, it is over
    // NOTIFY's 8,000 bytes: the commit goes through, and says "everything".
    await a.transaction(partners('new'))
    await b.catchUp()
    expect(b.keyVersion('partners_by_api_key', 'pk_test_old_7')).toBeGreaterThan(before)
    expect((await b.get('partners', 'p7'))?.api_key).toBe('pk_test_new_7')
  })

  it("a transaction's puts, written together, move every key their rows leave; a row put twice is its last put", async () => {
    const state = await open()
    await state.transaction(async (tx) => {
      tx.put('partners', { id: 'p1', api_key: 'pk_test_old' } as never)
      tx.put('users', user(1))
      tx.put('users', user(2))
    })
    const before = {
      key: state.keyVersion('partners_by_api_key', 'pk_test_old'),
      email: state.keyVersion('users_by_email', 'user1@example.com'),
    }
    await state.transaction(async (tx) => {
      tx.put('partners', { id: 'p1', api_key: 'pk_test_new' } as never)
      tx.put('users', { ...user(1), email: 'first@example.com' })
      tx.put('transactions', txn(1, 'u-1', '2026-01-01'))
      tx.put('users', { ...user(1), email: 'last@example.com' })
    })
    expect(state.keyVersion('partners_by_api_key', 'pk_test_old')).toBeGreaterThan(before.key)
    expect(state.keyVersion('users_by_email', 'user1@example.com')).toBeGreaterThan(before.email)
    expect((await state.get('users', 'u-1'))?.email).toBe('last@example.com')
    expect(await state.lookupOne('users_by_email', 'first@example.com')).toBeUndefined()
    expect((await state.lookup('users_by_partner', 'p1')).map((u) => u.id)).toEqual(['u-1', 'u-2'])
    expect((await state.lookup('transactions_by_user', 'u-1')).map((t) => t.id)).toEqual(['t-1'])
  })

  it('rows put again in one transaction take the places the memory engine gives them', async () => {
    const memory = await Store.open({ seed: emptyCollections, ephemeral: ['files'] })
    defineIndexes(memory)
    const engines = [await open(), new MemoryState(memory)]
    const orders = []
    for (const state of engines) {
      await state.transaction(async (tx) => {
        tx.put('transactions', txn(1, 'u-1', '2026-01-01'))
        tx.put('transactions', txn(2, 'u-1', '2026-01-01'))
        tx.put('transactions', txn(3, 'u-1', '2026-01-01'))
        tx.put('transactions', txn(4, 'u-2', '2026-01-01'))
        // Put again unchanged in time: keeps its place before t-3.
        tx.put('transactions', { ...txn(1, 'u-1', '2026-01-01'), amount: 1 } as never)
        // Moved to another user: after t-4 there, put before it; then again, unmoved.
        tx.put('transactions', txn(2, 'u-2', '2026-01-01'))
        tx.put('transactions', { ...txn(2, 'u-2', '2026-01-01'), amount: 2 } as never)
      })
      const ids = async (user: string) =>
        (await state.range('transactions_by_user', user)).map((t) => t.id)
      orders.push([await ids('u-1'), await ids('u-2')])
    }
    expect(orders[0]).toEqual([
      ['t-1', 't-3'],
      ['t-4', 't-2'],
    ])
    expect(orders[0]).toEqual(orders[1])
  })

  it('lists the keys of an index without an order from the index alone, as the memory engine orders them', async () => {
    const url = freshDatabaseUrl()
    const memory = await Store.open({ seed: emptyCollections, ephemeral: ['files'] })
    defineIndexes(memory)
    const engines = [await open(url), new MemoryState(memory)]
    const orders = []
    for (const state of engines) {
      // 2,000 users of three partners, p3's first; then p3's all go, and one comes back last.
      await state.transaction(async (tx) => {
        for (let n = 1; n <= 2000; n++) tx.put('users', user(n, `p${((n + 1) % 3) + 1}`))
      })
      const before = await state.keys('users_by_partner')
      await state.transaction(async (tx) => {
        for (let n = 1; n <= 2000; n += 3) tx.remove('users', `u-${n}`)
        tx.put('users', user(2001, 'p3'))
      })
      orders.push([before, await state.keys('users_by_partner')])
    }
    expect(orders[0]).toEqual([
      ['p3', 'p1', 'p2'],
      ['p1', 'p2', 'p3'],
    ])
    expect(orders[0]).toEqual(orders[1])
    // What the server read for them: a few index entries a key, not the table's 1,335 rows.
    const { url: plain, schema } = parseDatabaseUrl(url)
    const sql = postgres(plain, { onnotice: () => {}, connection: { search_path: schema } })
    try {
      const [explained] = await sql.unsafe<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${indexSql.users_by_partner.keys}`,
      )
      const plan = explained?.['QUERY PLAN'] ?? []
      const read = (node: PlanNode): number =>
        (node['Relation Name'] === 'users' ? node['Actual Rows'] * node['Actual Loops'] : 0) +
        (node.Plans ?? []).reduce((sum, child) => sum + read(child), 0)
      expect(plan).toHaveLength(1)
      expect(read((plan[0] as { Plan: PlanNode }).Plan)).toBeLessThan(20)
    } finally {
      await sql.end()
    }
  })

  it('an index read in a transaction sees the puts made before it there', async () => {
    const state = await open()
    const seen = await state.transaction(async (tx) => {
      tx.put('users', user(1))
      const one = (await tx.lookup('users_by_partner', 'p1')).map((u) => u.id)
      tx.put('users', user(2))
      tx.remove('users', 'u-1')
      const after = (await tx.lookup('users_by_partner', 'p1')).map((u) => u.id)
      return { one, after, count: await tx.count('users_by_partner', 'p1') }
    })
    expect(seen).toEqual({ one: ['u-1'], after: ['u-2'], count: 1 })
  })

  it('increment counts once among replicas: every caller its own count, a new window from 1', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    const counts = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).increment('rate:p1', 7)),
    )
    expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
    expect(await a.increment('rate:p2', 7)).toBe(1)
    expect(await b.increment('rate:p1', 8)).toBe(1)
    expect(await a.increment('rate:p1', 8)).toBe(2)
  })

  it('takeDue gives each replica its own due rows: those another transaction holds are skipped', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    const key = 'p1|wh_1'
    await a.transaction(async (tx) => {
      for (const [n, at] of [
        '2031-01-01T00:00:03.000Z',
        '2031-01-01T00:00:01.000Z',
        '2031-01-01T00:00:02.000Z',
        '2031-01-01T00:09:00.000Z',
      ].entries())
        tx.put('webhook_deliveries', delivery(`dlv_${n}`, at))
      tx.put('webhook_deliveries', delivery('dlv_done', null))
    })
    const upTo = '2031-01-01T00:00:05.000Z'
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let taken: () => void = () => {}
    const first = new Promise<void>((resolve) => {
      taken = resolve
    })
    const byA = a.transaction(async (tx) => {
      const rows = await tx.takeDue('deliveries_due_by_endpoint', key, upTo, 2)
      taken()
      await held
      return rows.map((r) => r.id)
    })
    await first
    const byB = await b.transaction(async (tx) =>
      (await tx.takeDue('deliveries_due_by_endpoint', key, upTo, 10)).map((r) => r.id),
    )
    release()
    expect(await byA).toEqual(['dlv_1', 'dlv_2'])
    expect(byB).toEqual(['dlv_0'])
  })

  it('replicas starting at once migrate once; the tables are the layout', async () => {
    const url = freshDatabaseUrl()
    const { url: plain, schema } = parseDatabaseUrl(url)
    const sql = postgres(plain, { onnotice: () => {} })
    try {
      const runs = await Promise.all([
        migrate(sql, schema),
        migrate(sql, schema),
        migrate(sql, schema),
      ])
      expect(runs.flat()).toEqual(migrations.map((m) => m.version))
      const columns = await sql<{ table_name: string; column_name: string }[]>`
        SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ${schema}`
      for (const layout of Object.values(layouts)) {
        const have = columns.filter((c) => c.table_name === layout.table).map((c) => c.column_name)
        const want = ['id', 'partner_id', 'added', 'row']
        for (const ix of layout.indexes) want.push(ix.key, ix.pos, ...(ix.order ? [ix.order] : []))
        expect(have.sort(), layout.table).toEqual(want.sort())
      }
      // Every counted index keeps its running count through a trigger per kind of change.
      const triggers = await sql<{ name: string }[]>`
        SELECT tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${schema} AND NOT tgisinternal`
      const counted = Object.values(layouts).flatMap((l) => l.indexes.filter((ix) => ix.counted))
      expect(counted.map((ix) => ix.name).sort()).toEqual([
        'deliveries_by_partner',
        'events_by_partner',
        'inbox_in_order',
        'sink_requests_by_sink',
        'users_by_partner',
      ])
      expect(triggers.map((t) => t.name).sort()).toEqual(
        counted
          .flatMap((ix) => ['delete', 'insert', 'update'].map((op) => `count_${ix.name}_${op}`))
          .sort(),
      )
      // A tenant table's only unique key starts with its partner; the others' is the id.
      await expectTenantKeys(sql, schema)
    } finally {
      await sql.end()
    }
  })

  it('a counted index counts what its rows say through puts, key moves, removes, folds and replaces', async () => {
    const url = freshDatabaseUrl()
    const state = await open(url)
    const counts = async () => [
      await state.count('users_by_partner', 'p1'),
      await state.count('users_by_partner', 'p2'),
    ]
    // Many more changes than a count sums before it folds them, in several transactions.
    for (let batch = 0; batch < 5; batch++) {
      await state.transaction(async (tx) => {
        for (let n = batch * 20; n < batch * 20 + 20; n++) tx.put('users', user(n))
      })
    }
    expect(await counts()).toEqual([100, 0])
    // The count that summed those hundred running-count rows folded them into one.
    const { url: plain, schema } = parseDatabaseUrl(url)
    const sql = postgres(plain, { onnotice: () => {} })
    const parts = async () =>
      (
        await sql.unsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM "${schema}".sandbox_counts WHERE idx = 'users_by_partner' AND k = 'p1'`,
        )
      )[0]?.n
    try {
      await vi.waitFor(async () => expect(await parts()).toBe(1), { timeout: 10_000 })
    } finally {
      await sql.end()
    }
    expect(await counts()).toEqual([100, 0])
    // Rows of another key count there; rewriting a row under its key moves nothing.
    await state.transaction(async (tx) => {
      for (let n = 0; n < 30; n++) tx.remove('users', `u-${n}`)
      for (let n = 200; n < 230; n++) tx.put('users', user(n, 'p2'))
      tx.put('users', user(99))
    })
    expect(await counts()).toEqual([70, 30])
    await state.transaction(async (tx) => {
      for (let n = 200; n < 210; n++) tx.remove('users', `u-${n}`)
      tx.remove('users', 'u-absent')
    })
    expect(await counts()).toEqual([70, 20])
    // Inside a transaction, its own writes count; a rollback counts nothing.
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(500))
        expect(await tx.count('users_by_partner', 'p1')).toBe(71)
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    expect(await counts()).toEqual([70, 20])
    await state.replaceAll({ ...emptyCollections(), users: { a: user(1, 'p2'), b: user(2, 'p2') } })
    expect(await counts()).toEqual([0, 2])
  })

  it('a counted key follows a row that moves to another key (a sink request)', async () => {
    const state = await open()
    const request = (n: number, sink: string) =>
      ({ id: `r-${n}`, sink, number: n + 1 }) as unknown as SinkRequestRow
    const counts = async () => [
      await state.count('sink_requests_by_sink', 'a'),
      await state.count('sink_requests_by_sink', 'b'),
    ]
    await state.transaction(async (tx) => {
      for (let n = 0; n < 5; n++) tx.put('sink_requests', request(n, 'a'))
    })
    await state.transaction(async (tx) => {
      for (let n = 0; n < 2; n++) tx.put('sink_requests', request(n, 'b'))
    })
    expect(await counts()).toEqual([3, 2])
  })

  it('refuses a tenant row without its partner, and writes nothing of its transaction', async () => {
    const state = await open()
    const orphan = { ...user(1), partner_id: undefined } as unknown as UserRow
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(2))
        tx.put('users', orphan)
      }),
    ).rejects.toThrow('a users row must belong to a partner (its partner_id)')
    expect(await state.all('users')).toEqual([])
  })

  it('a tenant row is found by its id alone and written over in place, not twice', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('users', user(1, 'p1')))
    await state.transaction(async (tx) =>
      tx.put('users', { ...user(1, 'p1'), email: 'new@example.com' }),
    )
    expect(await state.all('users')).toEqual([{ ...user(1, 'p1'), email: 'new@example.com' }])
    expect(await state.get('users', 'u-1')).toMatchObject({ email: 'new@example.com' })
  })

  it('a database made before tenant keys gets them at its next start, its rows kept', async () => {
    const url = freshDatabaseUrl()
    const before = await open(url)
    await before.transaction(async (tx) => {
      for (let n = 0; n < 3; n++) tx.put('users', user(n, n < 2 ? 'p1' : 'p2'))
      tx.put('transactions', txn(1, 'u-0', '2026-01-01T00:00:00.000Z'))
    })
    // Back to how migration 3 left it, rows and all.
    const { sql, schema } = await undoMigration(before, url, async (tx) => {
      for (const layout of Object.values(layouts).filter((l) => l.byPartner)) {
        const t = layout.table
        await tx.unsafe(
          `ALTER TABLE ${t} DROP CONSTRAINT ${t}_pkey, ALTER COLUMN partner_id DROP NOT NULL, ` +
            `ADD PRIMARY KEY (id); DROP INDEX ${t}_id; CREATE INDEX ${t}_partner ON ${t} (partner_id)`,
        )
      }
      await tx.unsafe('DELETE FROM sandbox_migrations WHERE version = 4')
    })
    try {
      const after = await open(url)
      expect((await after.all('users')).map((u) => u.id)).toEqual(['u-0', 'u-1', 'u-2'])
      expect(await after.lookup('users_by_partner', 'p1')).toHaveLength(2)
      await after.transaction(async (tx) =>
        tx.put('users', { ...user(0), email: 'moved@example.com' }),
      )
      expect(await after.all('users')).toHaveLength(3)
      await expectTenantKeys(sql, schema)
    } finally {
      await sql.end()
    }
  })

  it('a database made before running counts gets them from its rows at its next start', async () => {
    const url = freshDatabaseUrl()
    const before = await open(url)
    await before.transaction(async (tx) => {
      for (let n = 0; n < 7; n++) tx.put('users', user(n, n < 5 ? 'p1' : 'p2'))
    })
    // Back to how migration 2 left it, rows and all.
    const { sql } = await undoMigration(before, url, async (tx) => {
      const counted = Object.values(layouts).flatMap((l) => l.indexes.filter((ix) => ix.counted))
      for (const ix of counted) await tx.unsafe(`DROP FUNCTION count_${ix.name}() CASCADE`)
      await tx.unsafe('DROP TABLE sandbox_counts, sandbox_ephemeral_counts')
      await tx.unsafe('DELETE FROM sandbox_migrations WHERE version = 3')
    })
    await sql.end()
    const after = await open(url)
    expect(await after.count('users_by_partner', 'p1')).toBe(5)
    expect(await after.count('users_by_partner', 'p2')).toBe(2)
  })

  it('holds as many transactions open at once as ?pool= has connections; the rest wait', async () => {
    const state = await open(`${freshDatabaseUrl()}&pool=2`)
    let now = 0
    let most = 0
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const all = Array.from({ length: 6 }, (_, n) =>
      state.transaction(async (tx) => {
        most = Math.max(most, ++now)
        await gate
        tx.put('users', user(n))
        now--
      }),
    )
    await vi.waitFor(() => expect(now).toBe(2))
    release()
    await Promise.all(all)
    expect(most).toBe(2)
    expect(await state.count('users_by_partner', 'p1')).toBe(6)
  })
})

it('reads ?schema= and ?pool= out of the URL, refusing a pool that is no whole number from 1 to 100', () => {
  const base = 'postgres://sandbox:secret@db:5432/sandbox'
  expect(parseDatabaseUrl(base)).toEqual({ url: base, schema: 'partner_sandbox', pool: 3 })
  expect(parseDatabaseUrl(`${base}?schema=qa&pool=12&sslmode=require`)).toEqual({
    url: `${base}?sslmode=require`,
    schema: 'qa',
    pool: 12,
  })
  for (const bad of ['0', '101', '2.5', 'ten', '', '-1']) {
    expect(() => parseDatabaseUrl(`${base}?pool=${bad}`), bad).toThrow(
      `the database pool "${bad}" must be a whole number from 1 to 100`,
    )
  }
})
