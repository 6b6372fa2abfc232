import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  DEFAULT_POOL,
  DEFAULT_SCHEMA,
  MAX_POOL,
  parseDatabaseUrl,
} from '../src/state/database-url.js'
import type { IndexName, IndexRow } from '../src/state/indexes.js'
import { MemoryState } from '../src/state/memory-state.js'
import { migrate, migrations } from '../src/state/postgres/migrate.js'
import { PostgresState } from '../src/state/postgres/postgres-state.js'
import { turns } from '../src/state/postgres/retries.js'
import type { RangeOptions, State, StateTx } from '../src/state/seam.js'
import { defineIndexes } from '../src/store/indexes.js'
import {
  type CardRow,
  type CollectionsData,
  type DeliveryRow,
  emptyCollections,
  ephemeralCollections,
  keptOnReplace,
  type PartnerRow,
  type UserRow,
} from '../src/store/records.js'
import type { TransactionRow } from '../src/store/records-money.js'
import { Store } from '../src/store/store.js'
import { describePostgres, freshDatabaseUrl } from './postgres.js'
import { ruleRow } from './rule-row.js'

// The state seam's PostgreSQL engine, read through, against a real server: SERIALIZABLE
// transactions run again on a conflict (so read-modify-writes are exact, across replicas too),
// all-or-nothing commits, indexes read in the memory engine's order, due work taken with
// FOR UPDATE SKIP LOCKED, and the schema migrated once under its lock.

const opened: PostgresState[] = []
const clients: pg.Client[] = []
/** Gates a test holds transactions open with: opened after it, passed or failed. */
const gates: (() => void)[] = []
afterEach(async () => {
  for (const open of gates.splice(0)) open()
  await Promise.all(opened.splice(0).map((state) => state.close()))
  await Promise.all(clients.splice(0).map((client) => client.end()))
})

const AT = '2026-01-01T00:00:00.000Z'
/** `2026-01-0<day>T00:00:00.000Z`: a time as the rows keep it (and read it back). */
const day = (n: number) => `2026-01-${String(n).padStart(2, '0')}T00:00:00.000Z`

// Whole rows: the tables are typed, NOT NULL where the schema says so, with foreign keys.
const partner = (id: string): PartnerRow => ({
  id,
  name: `Partner ${id}`,
  display_name: `Partner ${id}`,
  slug: id,
  api_key: `pk_test_${id}`,
  api_secret_hash: 'scrypt$test',
  allowed_origins: [],
  webhook_url: null,
  scopes: ['users', 'cards'],
  rate_limit: 100,
  status: 'active',
  contact_email: `${id}@example.com`,
  contact_name: 'Ops',
  config: {},
  scenario: null,
  created_at: AT,
  updated_at: AT,
})
const user = (n: number, partnerId = 'p1'): UserRow => ({
  id: `u-${n}`,
  partner_id: partnerId,
  email: `user${n}@example.com`,
  phone_number: '+14155550100',
  first_name: 'Robin',
  last_name: 'Tester',
  date_of_birth: '1990-04-12',
  address: { line1: '1 Main Street' },
  secondary_address: {},
  provider_consumer_id: null,
  kyc_status: 'approved',
  metadata: {},
  is_active: true,
  password_hash: 'scrypt$test',
  ssn_last4: '1234',
  profile_picture_url: null,
  created_at: AT,
  updated_at: AT,
})
const card = (id: string, userId: string, partnerId = 'p1'): CardRow => ({
  id,
  partner_id: partnerId,
  user_id: userId,
  onboarding_id: `onb-${id}`,
  brand: 'visa',
  last4: '4242',
  exp_month: 12,
  exp_year: 2030,
  cardholder_name: 'Robin Tester',
  status: 'active',
  currency: 'USD',
  available_balance_cents: 0,
  ledger_balance_cents: 0,
  product_id: null,
  created_at: AT,
  updated_at: AT,
})
const txn = (n: number, userId: string, at: string): TransactionRow => ({
  id: `t-${n}`,
  partner_id: 'p1',
  user_id: userId,
  card_id: 'card_1',
  type: 'purchase',
  status: 'posted',
  direction: 'debit',
  amount_cents: 100,
  currency: 'USD',
  description: 'Coffee',
  merchant: null,
  deposit_id: null,
  dispute_id: null,
  original_transaction_id: null,
  decline_reason: null,
  available_balance_after_cents: 0,
  ledger_balance_after_cents: 0,
  refunded_cents: 0,
  created_at: at,
  updated_at: at,
  posted_at: null,
})
const delivery = (n: number, at: string, partnerId = 'p1'): DeliveryRow => ({
  id: `dlv_${n}`,
  partner_id: partnerId,
  webhook_id: 'wh_1',
  event_id: `evt_${n}`,
  event_type: 'card.funded',
  url: 'https://hooks.example.test/in',
  status: 'pending',
  attempts: [],
  next_attempt_at: at,
  redelivery_of: null,
  created_at: at,
  completed_at: null,
})

/** Two partners, a user of each, and a card of p1's user: what the rows above belong to. */
const world = (): CollectionsData => ({
  ...emptyCollections(),
  partners: { p1: partner('p1'), p2: partner('p2') },
  users: { 'u-1': user(1), 'u-2': user(2), 'u-3': user(3, 'p2') },
  cards: { card_1: card('card_1', 'u-1') },
})

async function open(url = freshDatabaseUrl(), seed: () => CollectionsData = world) {
  const state = await PostgresState.open({ url, seed })
  opened.push(state)
  return state
}

async function closeOne(state: PostgresState) {
  opened.splice(opened.indexOf(state), 1)
  await state.close()
}

/** A plain connection to the URL's server, its search_path the URL's schema. */
async function connect(url: string) {
  const { url: plain, schema } = parseDatabaseUrl(url)
  const client = new pg.Client({ connectionString: plain, options: `-c search_path=${schema}` })
  client.on('error', () => {})
  await client.connect()
  clients.push(client)
  return { client, schema }
}

/** A promise that resolves once `open` is called (by the test, or after it). */
function gate() {
  let open = () => {}
  const passed = new Promise<void>((resolve) => {
    open = resolve
  })
  gates.push(open)
  return { passed, open }
}

/** The memory engine, on the same seed: what the PostgreSQL engine answers as. */
async function memoryState(seed: () => CollectionsData = world): Promise<State> {
  const store = await Store.open({
    seed,
    ephemeral: ephemeralCollections,
    keepOnReplace: keptOnReplace,
  })
  defineIndexes(store)
  return new MemoryState(store)
}

/** A transaction's `takeDue` (PgTx's, not yet on the seam's StateTx). */
type TakeDue = <I extends IndexName>(
  index: I,
  key: string,
  upTo: string,
  limit: number,
) => Promise<IndexRow<I>[]>
const takeDue = (tx: StateTx) => (tx as unknown as { takeDue: TakeDue }).takeDue.bind(tx)

const balance = async (state: State) =>
  (await state.get('cards', 'card_1'))?.available_balance_cents

/** One cent more on card_1, read and written in one transaction with awaits between. */
const addCent = (state: State, ran?: () => void) =>
  state.transaction(async (tx) => {
    const row = (await tx.get('cards', 'card_1')) as CardRow
    await tx.lookup('cards_by_user', 'u-1')
    tx.put('cards', { ...row, available_balance_cents: row.available_balance_cents + 1 })
    if (ran) tx.afterCommit(ran)
  })

describePostgres('state seam, PostgreSQL engine', () => {
  it('100 read-modify-writes at once, with awaits between, are all counted (each afterCommit run once)', async () => {
    const state = await open()
    let committed = 0
    await Promise.all(Array.from({ length: 100 }, () => addCent(state, () => committed++)))
    expect(await balance(state)).toBe(100)
    // An attempt that lost a conflict and ran again ran its afterCommit once, when it committed.
    expect(committed).toBe(100)
  })

  it('two replicas on one database never lose a write between them', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    await Promise.all(Array.from({ length: 60 }, (_, i) => addCent(i % 2 ? a : b)))
    expect(await balance(a)).toBe(60)
    expect(await balance(b)).toBe(60)
  })

  it('reads in a transaction see its own writes; other readers see them once committed', async () => {
    const state = await open()
    const held = gate()
    const wrote = gate()
    const pending = state.transaction(async (tx) => {
      tx.put('users', { ...user(1), email: 'changed@example.com' })
      tx.put('users', user(4))
      const seen: unknown[] = [
        (await tx.get('users', 'u-1'))?.email,
        (await tx.lookup('users_by_partner', 'p1')).map((u) => u.id),
        await tx.count('users_by_partner', 'p1'),
      ]
      tx.remove('users', 'u-4')
      seen.push(await tx.get('users', 'u-4'))
      wrote.open()
      await held.passed
      return seen
    })
    await wrote.passed
    // Not committed yet: another reader sees the rows as they were.
    expect((await state.get('users', 'u-1'))?.email).toBe('user1@example.com')
    held.open()
    expect(await pending).toEqual(['changed@example.com', ['u-1', 'u-2', 'u-4'], 3, undefined])
    expect((await state.get('users', 'u-1'))?.email).toBe('changed@example.com')
    expect(await state.get('users', 'u-4')).toBeUndefined()
  })

  it('a read repeated in a transaction answers anew once the transaction wrote that collection', async () => {
    const state = await open()
    const seen = await state.transaction(async (tx) => {
      const emails = async () => [
        (await tx.get('users', 'u-1'))?.email,
        (await tx.lookup('users_by_partner', 'p1')).map((u) => u.email),
        await tx.count('users_by_partner', 'p1'),
      ]
      const before = await emails()
      const again = await emails()
      tx.put('cards', { ...card('card_1', 'u-1'), available_balance_cents: 7 })
      tx.put('users', { ...user(1), email: 'changed@example.com' })
      tx.put('users', user(4))
      const after = await emails()
      tx.remove('users', 'u-4')
      return [
        before,
        again,
        after,
        await emails(),
        (await tx.get('cards', 'card_1'))?.available_balance_cents,
      ]
    })
    const first = ['user1@example.com', ['user1@example.com', 'user2@example.com'], 2]
    expect(seen).toEqual([
      first,
      first,
      ['changed@example.com', ['changed@example.com', 'user2@example.com', 'user4@example.com'], 3],
      ['changed@example.com', ['changed@example.com', 'user2@example.com'], 2],
      7,
    ])
  })

  it('rolls every write of a transaction that throws back, indexes included', async () => {
    const state = await open()
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(4))
        tx.put('users', { ...user(1), email: 'changed@example.com' })
        tx.remove('users', 'u-2')
        expect(await tx.get('users', 'u-4')).toBeDefined()
        expect(await tx.get('users', 'u-2')).toBeUndefined()
        throw new Error('no')
      }),
    ).rejects.toThrow('no')
    expect(await state.get('users', 'u-4')).toBeUndefined()
    expect(await state.get('users', 'u-1')).toEqual(user(1))
    expect((await state.lookup('users_by_partner', 'p1')).map((u) => u.id)).toEqual(['u-1', 'u-2'])
    expect(await state.lookupOne('users_by_email', 'changed@example.com')).toBeUndefined()
    expect((await state.lookupOne('users_by_email', 'user1@example.com'))?.id).toBe('u-1')
  })

  it('writes still queued when a transaction throws are never sent: not after its ROLLBACK, nor into the next', async () => {
    // One connection: the next transaction gets the connection the failed one used.
    const state = await open(`${freshDatabaseUrl()}&pool=1`)
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(4))
        tx.put('users', user(5))
        tx.put('users', user(6))
        throw new Error('no')
      }),
    ).rejects.toThrow('no')
    await state.transaction(async (tx) => {
      tx.put('users', user(7))
    })
    expect((await state.lookup('users_by_partner', 'p1')).map((u) => u.id)).toEqual([
      'u-1',
      'u-2',
      'u-7',
    ])
  })

  it('reads a row back as it was written: types, nulls, optional fields absent, times to the ms', async () => {
    const state = await open()
    const rows = {
      partner: { ...partner('p3'), auto_complete: true, clock: { offset_ms: -5, frozen_at: null } },
      user: { ...user(7, 'p3'), metadata: { nested: [1, 'two', { three: null }] } },
      delivery: {
        ...delivery(1, '2026-03-04T05:06:07.089Z', 'p3'),
        attempts: [{ number: 1, at: AT, status_code: 500, duration_ms: 12, error: 'x' }],
      },
    }
    await state.transaction(async (tx) => {
      tx.put('partners', rows.partner)
      tx.put('partners', partner('p4'))
      tx.put('users', rows.user)
      tx.put('webhook_deliveries', rows.delivery)
    })
    expect(await state.get('partners', 'p3')).toEqual(rows.partner)
    // Optional fields never written stay absent (not null) when read back.
    const p4 = await state.get('partners', 'p4')
    expect(p4).toEqual(partner('p4'))
    expect(p4 && 'clock' in p4).toBe(false)
    expect(await state.get('users', 'u-7')).toEqual(rows.user)
    expect(await state.get('webhook_deliveries', 'dlv_1')).toEqual(rows.delivery)
    // Each row's fields come in its schema's order, as the memory engine keeps them.
    expect(Object.keys((await state.get('users', 'u-7')) ?? {})).toEqual(Object.keys(rows.user))
  })

  it('reads started together answer as each would alone: rows, types and misses, another partner unseen', async () => {
    const state = await open()
    const rows = {
      partner: { ...partner('p3'), clock: { offset_ms: -5, frozen_at: null } },
      user: { ...user(7, 'p3'), metadata: { nested: [1, 'two', { three: null }] } },
      delivery: delivery(1, '2026-03-04T05:06:07.089Z', 'p3'),
    }
    await state.transaction(async (tx) => {
      tx.put('partners', rows.partner)
      tx.put('users', rows.user)
      tx.put('webhook_deliveries', rows.delivery)
    })
    const own = state.tenant('p3')
    const found = await Promise.all([
      state.get('partners', 'p3'),
      own.get('users', 'u-7'),
      own.get('users', 'u-404'),
      state.tenant('p1').get('users', 'u-7'),
      own.get('webhook_deliveries', 'dlv_1'),
      own.lookupOne('users_by_email', 'user7@example.com'),
      own.get('users', 'u-\0'),
    ])
    expect(found).toEqual([
      rows.partner,
      rows.user,
      undefined,
      undefined,
      rows.delivery,
      rows.user,
      undefined,
    ])
    expect(Object.keys(found[1] ?? {})).toEqual(Object.keys(rows.user))
  })

  it('pages an ordered index as the memory engine does: time order, ties as added, cursors, reverse', async () => {
    const engines = [await open(), await memoryState()]
    const answers = []
    for (const state of engines) {
      await state.transaction(async (tx) => {
        tx.put('transactions', txn(1, 'u-1', day(2)))
        tx.put('transactions', txn(2, 'u-1', day(3)))
        // Dated earlier (a clock moved back): takes its place in time, not at the end.
        tx.put('transactions', txn(3, 'u-1', day(1)))
        tx.put('transactions', txn(4, 'u-1', day(2)))
        tx.put('transactions', txn(5, 'u-2', day(2)))
      })
      const ids = async (options?: RangeOptions) =>
        (await state.range('transactions_by_user', 'u-1', options)).map((t) => t.id)
      const answer = {
        all: await ids(),
        lookup: (await state.lookup('transactions_by_user', 'u-1')).map((t) => t.id),
        first: (await state.lookupOne('transactions_by_user', 'u-1'))?.id,
        newest: await ids({ reverse: true, limit: 2 }),
        olderThan: await ids({ reverse: true, after: 't-4' }),
        newerThan: await ids({ after: 't-1', limit: 1 }),
        pastLast: await ids({ after: 't-2' }),
        // A cursor naming a row of another key, or none, gives nothing.
        otherKey: await ids({ after: 't-5' }),
        otherKeyReverse: await ids({ after: 't-5', reverse: true }),
        missing: await ids({ after: 't-404' }),
        none: await ids({ limit: 0 }),
        count: await state.count('transactions_by_user', 'u-1'),
        has: [
          await state.has('transactions_by_user', 'u-2', 't-5'),
          await state.has('transactions_by_user', 'u-1', 't-5'),
        ],
        moved: [] as string[],
        keys: [] as string[],
      }
      // Written again at its time, a row keeps its place; moved in time, it moves.
      await state.transaction(async (tx) => {
        tx.put('transactions', { ...txn(1, 'u-1', day(2)), amount_cents: 1 })
        tx.put('transactions', txn(3, 'u-1', day(5)))
      })
      answer.moved = await ids()
      answer.keys = await state.keys('transactions_by_user')
      answers.push(answer)
    }
    expect(answers[0]).toEqual({
      all: ['t-3', 't-1', 't-4', 't-2'],
      lookup: ['t-3', 't-1', 't-4', 't-2'],
      first: 't-3',
      newest: ['t-2', 't-4'],
      olderThan: ['t-1', 't-3'],
      newerThan: ['t-4'],
      pastLast: [],
      otherKey: [],
      otherKeyReverse: [],
      missing: [],
      none: [],
      count: 4,
      has: [true, false],
      moved: ['t-1', 't-4', 't-2', 't-3'],
      keys: ['u-1', 'u-2'],
    })
    expect(answers[0]).toEqual(answers[1])
  })

  it('afterCommit runs after the commit, never after a rollback', async () => {
    const state = await open()
    const ran: string[] = []
    await state.transaction(async (tx) => {
      tx.put('users', user(4))
      tx.afterCommit(async () => {
        // Committed by the time it runs: any replica reads it.
        ran.push(`first:${(await state.get('users', 'u-4'))?.id}`)
      })
    })
    await vi.waitFor(() => expect(ran).toEqual(['first:u-4']))
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(5))
        tx.afterCommit(() => ran.push('second'))
        throw new Error('no')
      }),
    ).rejects.toThrow('no')
    await expect(
      state.transaction(async (tx) => {
        tx.put('cards', { ...card('card_2', 'u-1'), status: 'lost' as never })
        tx.afterCommit(() => ran.push('third'))
      }),
    ).rejects.toThrow()
    expect(ran).toEqual(['first:u-4'])
  })

  it('a failed write fails its transaction with the database error, and commits nothing', async () => {
    const state = await open()
    const badCard = { ...card('card_2', 'u-1'), status: 'lost' as never }
    // The CHECK of a status's values refuses it as the statement runs.
    const refused = await state
      .transaction(async (tx) => {
        tx.put('users', user(4))
        tx.put('cards', badCard)
        tx.put('users', user(5))
      })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(pg.DatabaseError)
    expect(refused).toMatchObject({ code: '23514', constraint: 'cards_status_check' })
    // A read after the failed write fails with the write's error, not "transaction aborted".
    const readAfter = await state
      .transaction(async (tx) => {
        tx.put('cards', badCard)
        await tx.get('users', 'u-1')
        tx.put('users', user(6))
      })
      .catch((error: unknown) => error)
    expect(readAfter).toMatchObject({ code: '23514', constraint: 'cards_status_check' })
    // A row whose owner is not there is refused at COMMIT (the foreign keys are deferred).
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(8))
        tx.put('cards', card('card_3', 'u-404'))
      }),
    ).rejects.toMatchObject({ code: '23503' })
    expect((await state.all('users')).map((u) => u.id)).toEqual(['u-1', 'u-2', 'u-3'])
    expect((await state.all('cards')).map((c) => c.id)).toEqual(['card_1'])
  })

  it('keeps committed rows for the next start; seeds a new database once; a reset goes back to the seed', async () => {
    const url = freshDatabaseUrl()
    let seeded = 0
    const seed = () => {
      seeded++
      return world()
    }
    const state = await open(url, seed)
    await state.transaction(async (tx) => tx.put('users', user(4)))
    await closeOne(state)
    const again = await open(url, seed)
    expect(seeded).toBe(1)
    expect((await again.all('users')).map((u) => u.id)).toEqual(['u-1', 'u-2', 'u-3', 'u-4'])
    await again.reset()
    expect(seeded).toBe(1)
    expect((await again.all('users')).map((u) => u.id)).toEqual(['u-1', 'u-2', 'u-3'])
  })

  it('putEphemerals writes rows of ephemeral collections at once; the last put of a row wins', async () => {
    const state = await open()
    // What JSON has to get right.
    const note = 'a "quote", a \\ backslash, {braces}, NULL, null, é, \u2028'
    const entry = (slot: number, n: number) =>
      ({
        id: `jrn_${slot}`,
        seq: String(n).padStart(3, '0'),
        partner_id: n % 2 ? 'p1' : 'p2',
        entry: { id: `req_${n}`, partner_id: n % 2 ? 'p1' : 'p2', note },
      }) as never
    const capture = (slot: number, n: number) =>
      ({ id: `jrn_${slot}`, seq: String(n).padStart(3, '0'), capture: null }) as never
    // 20 requests at once, each its own slot; then 30 more, one after another, over the ring.
    const put = (n: number) =>
      state.putEphemerals([
        { collection: 'request_journal', row: entry(n % 20, n) },
        { collection: 'request_captures', row: capture(n % 20, n) },
      ])
    await Promise.all(Array.from({ length: 20 }, (_, n) => put(n)))
    for (let n = 20; n < 50; n++) await put(n)
    const newest = (slot: number) => (slot < 10 ? 40 + slot : 20 + slot)
    for (let slot = 0; slot < 20; slot++) {
      const row = await state.get('request_journal', `jrn_${slot}`)
      expect(row?.entry.id).toBe(`req_${newest(slot)}`)
      expect((row?.entry as unknown as { note?: string } | undefined)?.note).toBe(note)
      expect((await state.get('request_captures', `jrn_${slot}`))?.seq).toBe(
        String(newest(slot)).padStart(3, '0'),
      )
    }
    // Each partner's journal holds its newest rows only, newest first.
    const ids = async (partner: string) =>
      (await state.range('journal_by_partner', partner, { reverse: true })).map((r) => r.entry.id)
    expect(await ids('p1')).toEqual([49, 47, 45, 43, 41, 39, 37, 35, 33, 31].map((n) => `req_${n}`))
    expect(await ids('p2')).toEqual([48, 46, 44, 42, 40, 38, 36, 34, 32, 30].map((n) => `req_${n}`))
    // One slot put twice in one call: its last put.
    await state.putEphemerals([
      { collection: 'request_journal', row: entry(1, 98) },
      { collection: 'request_journal', row: entry(1, 100) },
    ])
    expect((await state.get('request_journal', 'jrn_1'))?.entry.id).toBe('req_100')
    expect((await ids('p2'))[0]).toBe('req_100')
    expect(await state.count('journal_by_partner', 'p1')).toBe(9)
    await expect(
      state.putEphemerals([
        { collection: 'request_journal', row: entry(1, 200) },
        { collection: 'users', row: user(4) },
      ]),
    ).rejects.toThrow('users is not ephemeral')
    expect((await state.get('request_journal', 'jrn_1'))?.entry.id).toBe('req_100')
    expect(await state.get('users', 'u-4')).toBeUndefined()
  })

  it('a request journal entry holding a NUL character is written and read back', async () => {
    const state = await open()
    // A request's path or body may carry %00; the journal keeps it as JSON text does.
    const entry = { id: 'req_1', partner_id: 'p1', path: '/api/v1/partner/users/a\u0000b' }
    await state.putEphemerals([
      {
        collection: 'request_journal',
        row: { id: 'jrn_0', seq: '001', partner_id: null, entry } as never,
      },
    ])
    expect((await state.get('request_journal', 'jrn_0'))?.entry).toEqual(entry)
  })

  it('a replace keeps the traffic collections, empties the other ephemeral ones, brings none back', async () => {
    const state = await open()
    await state.putEphemerals([
      {
        collection: 'request_journal',
        row: {
          id: 'jrn_0',
          seq: '001',
          partner_id: 'p1',
          entry: { id: 'req_1', partner_id: 'p1' },
        } as never,
      },
      {
        collection: 'sinks',
        row: {
          id: 'inbox',
          secret: null,
          fail_next: 0,
          fail_status: 500,
          delay_ms: 0,
          signature_header: 'x-signature',
          seq: 0,
          bytes: 0,
          used: 0,
        },
      },
      { collection: 'clocks', row: { id: 'sandbox', offset_ms: 5, frozen_at: null } },
      {
        collection: 'inbox_messages',
        row: {
          id: 'msg_1',
          partner_id: 'p1',
          user_id: 'u-1',
          to: 'user1@example.com',
          channel: 'email',
          kind: 'login_code',
          subject: 'Your code',
          body: '123456',
          code: '123456',
          created_at: AT,
          expires_at: AT,
        },
      },
    ])
    expect(keptOnReplace).toEqual(expect.arrayContaining(['request_journal', 'sinks']))
    expect(keptOnReplace).not.toEqual(expect.arrayContaining(['clocks']))
    const doc = await state.export()
    // An export is the durable state: no ephemeral rows.
    for (const name of ephemeralCollections) expect(doc.collections[name], name).toEqual({})
    await state.replaceAll({ ...doc.collections, users: { 'u-1': user(1) } })
    expect((await state.all('users')).map((u) => u.id)).toEqual(['u-1'])
    expect(await state.all('clocks')).toEqual([])
    expect(await state.all('inbox_messages')).toEqual([])
    expect((await state.all('request_journal')).map((r) => r.id)).toEqual(['jrn_0'])
    expect((await state.all('sinks')).map((r) => r.id)).toEqual(['inbox'])
    expect((await state.all('partners')).map((r) => r.id)).toEqual(['p1', 'p2'])
  })

  it('a replace adds its loaded scenarios to those there: none is lost, one of a name replaced', async () => {
    const state = await open()
    const scenario = (name: string, description: string) => ({
      id: name,
      document: { name, description },
      loaded_at: AT,
    })
    await state.transaction(async (tx) => {
      tx.put('scenarios', scenario('kept', 'Loaded before.'))
      tx.put('scenarios', scenario('both', 'The old one.'))
    })
    const doc = await state.export()
    await state.replaceAll({
      ...doc.collections,
      scenarios: { both: scenario('both', 'The new one.'), new: scenario('new', 'Restored.') },
    })
    const after = await state.all('scenarios')
    expect(after.map((row) => [row.id, row.document.description]).sort()).toEqual([
      ['both', 'The new one.'],
      ['kept', 'Loaded before.'],
      ['new', 'Restored.'],
    ])
  })

  it('a replace takes the statistics of the tables it filled (past 50 rows), not of the others', async () => {
    const url = freshDatabaseUrl()
    const state = await open(url)
    const { client, schema } = await connect(url)
    const many = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`u-${i + 1}`, user(i + 1)] as const),
    )
    await state.replaceAll({ ...world(), users: many })
    // Autovacuum waits a minute between rounds: a time here is the replace's own ANALYZE.
    const { rows } = await client.query<{ table: string; analyzed: boolean }>(
      `SELECT relname AS table, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables
       WHERE schemaname = $1 AND relname IN ('users', 'partners', 'cards') ORDER BY relname`,
      [schema],
    )
    expect(rows).toEqual([
      { table: 'cards', analyzed: false },
      { table: 'partners', analyzed: false },
      { table: 'users', analyzed: true },
    ])
    expect(await state.all('users')).toHaveLength(60)
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

  it('increment: asked at once in one replica, in order, a window change among them', async () => {
    const state = await open(freshDatabaseUrl())
    const windows = [7, 7, 7, 8, 8, 7, 8, 8, 8]
    const counts = await Promise.all(windows.map((w) => state.increment('rate:p1', w)))
    // Counted in the order asked: a window's first count is 1, and the counter moved back to
    // window 7 starts it again.
    expect(counts).toEqual([1, 2, 3, 1, 2, 1, 1, 2, 3])
    expect(await state.increment('rate:p1', 8)).toBe(4)
  })

  it('useRule: of replicas taking a counted rule at once, only `times` takes succeed', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    await a.transaction(async (tx) => tx.put('rules', ruleRow('rul_a', null, 3)))
    const taken = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).useRule(ruleRow('rul_a', null, 3))),
    )
    expect(taken.filter(Boolean)).toHaveLength(3)
    expect((await b.get('rules', 'rul_a'))?.used).toBe(3)
    // A first use writes the row (a scenario rule's count), once among replicas.
    const first = await Promise.all([a, b].map((s) => s.useRule(ruleRow('rul_s', 'p1', 1))))
    expect(first.filter(Boolean)).toHaveLength(1)
  })

  it('lookupMany reads the rows under several keys in one statement, as the memory engine does', async () => {
    const state = await open(freshDatabaseUrl())
    await state.transaction(async (tx) => {
      tx.put('partners', partner('p1'))
      tx.put('rules', ruleRow('rul_global', null))
      tx.put('rules', ruleRow('rul_mine', 'p1'))
      tx.put('rules', ruleRow('rul_other', 'p2'))
    })
    const rows = await state.lookupMany('rules_by_partner', ['p1', '*'])
    expect(rows.map((r) => r.id).sort()).toEqual(['rul_global', 'rul_mine'])
    expect(rows.find((r) => r.id === 'rul_mine')).toEqual(ruleRow('rul_mine', 'p1'))
  })

  it('reads started at once, three of many rows among them, each answer their own rows in order', async () => {
    const state = await open(freshDatabaseUrl())
    await state.transaction(async (tx) => {
      tx.put('partners', partner('p1'))
      tx.put('partners', partner('p2'))
      for (const id of ['rul_c', 'rul_a', 'rul_b']) tx.put('rules', ruleRow(id, 'p1'))
      tx.put('rules', ruleRow('rul_other', 'p2'))
    })
    const [mine, p2, none, theirs, missing] = await Promise.all([
      state.lookupMany('rules_by_partner', ['p1']),
      state.get('partners', 'p2'),
      state.lookupMany('rules_by_partner', ['p3', '*']),
      state.lookupMany('rules_by_partner', ['p2']),
      state.get('partners', 'p3'),
    ])
    // In the order written, as the memory engine keeps them.
    expect(mine.map((r) => r.id)).toEqual(['rul_c', 'rul_a', 'rul_b'])
    expect(mine[1]).toEqual(ruleRow('rul_a', 'p1'))
    expect(p2?.id).toBe('p2')
    expect(none).toEqual([])
    expect(theirs.map((r) => r.id)).toEqual(['rul_other'])
    expect(missing).toBeUndefined()
  })

  it('replicas starting at once migrate once, and seed once', async () => {
    const url = freshDatabaseUrl()
    const { url: plain, schema } = parseDatabaseUrl(url)
    const three = await Promise.all(
      [1, 2, 3].map(async () => {
        const client = new pg.Client({ connectionString: plain })
        await client.connect()
        clients.push(client)
        return client
      }),
    )
    const runs = await Promise.all(three.map((client) => migrate(client, schema)))
    expect(runs.flat()).toEqual(migrations.map((m) => m.version))
    expect(migrations.map((m) => [m.version, m.name])).toEqual([
      [1, 'baseline'],
      [2, 'rules'],
      [3, 'partner-names'],
      [4, 'users-by-primary-key'],
      [5, 'partners-with-own-clock'],
      [6, 'sandbox-scenario'],
      [7, 'partners-by-scenario'],
      [8, 'partners-by-slug'],
    ])
    // Three replicas opening the migrated schema at once: one seeds it.
    let seeded = 0
    const replicas = await Promise.all(
      [1, 2, 3].map(() =>
        open(url, () => {
          seeded++
          return world()
        }),
      ),
    )
    expect(seeded).toBe(1)
    expect(await replicas[2]?.count('users_by_partner', 'p1')).toBe(2)
    const { client } = await connect(url)
    const applied = await client.query(
      'SELECT version, name FROM schema_migrations ORDER BY version',
    )
    expect(applied.rows).toEqual([
      { version: 1, name: 'baseline' },
      { version: 2, name: 'rules' },
      { version: 3, name: 'partner-names' },
      { version: 4, name: 'users-by-primary-key' },
      { version: 5, name: 'partners-with-own-clock' },
      { version: 6, name: 'sandbox-scenario' },
      { version: 7, name: 'partners-by-scenario' },
      { version: 8, name: 'partners-by-slug' },
    ])
  })

  it('refuses a schema holding the key-value layout of an earlier build, and changes nothing there', async () => {
    const url = freshDatabaseUrl()
    const { client, schema } = await connect(url)
    await client.query(`CREATE SCHEMA ${schema}`)
    await client.query(
      'CREATE TABLE sandbox_migrations (version integer PRIMARY KEY, name text NOT NULL)',
    )
    await expect(open(url)).rejects.toThrow(
      `the database schema "${schema}" holds the key-value layout of an earlier partner-sandbox, which this one does not read: drop it (DROP SCHEMA "${schema}" CASCADE) or name another with ?schema=`,
    )
    const tables = await client.query(
      'SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY 1',
      [schema],
    )
    expect(tables.rows.map((r) => r.tablename)).toEqual(['sandbox_migrations'])
  })

  it('refuses a tenant row without its partner, and writes nothing of its transaction', async () => {
    const state = await open()
    const orphan = { ...user(4), partner_id: undefined } as unknown as UserRow
    await expect(
      state.transaction(async (tx) => {
        tx.put('users', user(5))
        tx.put('users', orphan)
      }),
    ).rejects.toThrow(/partner_id/)
    expect((await state.all('users')).map((u) => u.id)).toEqual(['u-1', 'u-2', 'u-3'])
  })

  it('a tenant row is found by its id alone and written over in place, not twice', async () => {
    const state = await open()
    await state.transaction(async (tx) => tx.put('users', { ...user(1), email: 'new@example.com' }))
    expect(await state.get('users', 'u-1')).toEqual({ ...user(1), email: 'new@example.com' })
    expect((await state.all('users')).map((u) => u.id)).toEqual(['u-1', 'u-2', 'u-3'])
    expect(await state.lookupOne('users_by_email', 'user1@example.com')).toBeUndefined()
    await state.transaction(async (tx) => tx.remove('users', 'u-1'))
    expect(await state.get('users', 'u-1')).toBeUndefined()
  })

  it('a tenant row stays with its partner: a write moving it to another is refused, as in memory', async () => {
    for (const state of [await memoryState(), await open()]) {
      const engine = state instanceof PostgresState ? 'postgres' : 'memory'
      const moved = await state
        .transaction(async (tx) => tx.put('users', user(1, 'p2')))
        .then(
          () => 'written',
          (error: Error) => error.message,
        )
      // Not a second row with the same id under the other partner: get() would find either.
      expect(await state.all('users'), engine).toEqual([user(1), user(2), user(3, 'p2')])
      expect(moved, engine).not.toBe('written')
    }
  })

  it('a refused move fails its transaction: the writes sent behind it are not committed', async () => {
    const state = await open()
    // The move answers no row (no database error), while the writes after it, pipelined
    // behind it on the connection, succeed as statements: the transaction must still fail.
    const moved = state.transaction(async (tx) => {
      tx.put('users', user(1, 'p2'))
      tx.put('users', user(7))
      await tx.get('users', 'u-7')
      tx.put('users', user(8))
    })
    await expect(moved).rejects.toThrow('a users row stays with its partner (u-1 would move)')
    expect((await state.all('users')).map((u) => u.id)).toEqual(['u-1', 'u-2', 'u-3'])
  })

  it("a partner's reads and transactions see and write that partner's rows only", async () => {
    const state = await open()
    await state.transaction(async (tx) => {
      for (let n = 1; n <= 3; n++) tx.put('webhook_deliveries', delivery(n, day(n)))
      tx.put('webhook_deliveries', delivery(4, day(2), 'p2'))
    })
    const p2 = state.tenant('p2')
    expect(await p2.get('users', 'u-1')).toBeUndefined()
    expect((await p2.get('users', 'u-3'))?.id).toBe('u-3')
    expect((await p2.all('users')).map((u) => u.id)).toEqual(['u-3'])
    expect((await p2.range('deliveries_by_webhook', 'wh_1')).map((d) => d.id)).toEqual(['dlv_4'])
    // A cursor naming another partner's row is not under this partner's key.
    expect(await p2.range('deliveries_by_webhook', 'wh_1', { after: 'dlv_1' })).toEqual([])
    expect(await p2.has('deliveries_by_webhook', 'wh_1', 'dlv_1')).toBe(false)
    expect(
      (await state.tenant('p1').range('deliveries_by_webhook', 'wh_1', { after: 'dlv_1' })).map(
        (d) => d.id,
      ),
    ).toEqual(['dlv_2', 'dlv_3'])
    await expect(
      state.transaction(async (tx) => tx.put('users', user(9, 'p1')), { partner: 'p2' }),
    ).rejects.toThrow("a users row of another partner is written in partner p2's transaction")
    // Another partner's row is not this transaction's to remove (nor to see).
    await state.transaction(
      async (tx) => {
        expect(await tx.get('users', 'u-1')).toBeUndefined()
        tx.remove('users', 'u-1')
      },
      { partner: 'p2' },
    )
    expect((await state.get('users', 'u-1'))?.id).toBe('u-1')
  })

  it('takeDue: due rows in order, locked; two transactions at once never take the same row', async () => {
    const url = freshDatabaseUrl()
    const [a, b] = [await open(url), await open(url)]
    await a.transaction(async (tx) => {
      for (let n = 1; n <= 4; n++) tx.put('webhook_deliveries', delivery(n, day(n)))
      tx.put('webhook_deliveries', delivery(5, day(6)))
      tx.put('webhook_deliveries', delivery(6, day(1), 'p2'))
    })
    const upTo = day(4)
    // Every attempt's take, and the takes of the attempts that committed.
    const attempts: { who: string; ids: string[] }[] = []
    const committed: Record<string, string[]> = {}
    const take = (state: State, who: string, limit: number, hold?: Promise<void>) =>
      state.transaction(
        async (tx) => {
          const rows = await takeDue(tx)('deliveries_by_webhook', 'wh_1', upTo, limit)
          const ids = rows.map((d) => d.id)
          attempts.push({ who, ids })
          if (hold) await hold
          // Taken: done with (a sender would record its attempt here).
          for (const id of ids) tx.remove('webhook_deliveries', id)
          tx.afterCommit(() => {
            committed[who] = ids
          })
        },
        who === 'b' ? { partner: 'p1' } : undefined,
      )
    const held = gate()
    const first = take(a, 'a', 2, held.passed)
    await vi.waitFor(() => expect(attempts).toHaveLength(1))
    // a holds the two due first: dlv_1, and p2's dlv_6 of the same time (a is not scoped).
    expect(attempts[0]).toEqual({ who: 'a', ids: ['dlv_1', 'dlv_6'] })
    // b, while a holds its rows, takes the next due ones of p1 and not a's; dlv_5 is not due.
    await take(b, 'b', 10)
    expect(attempts[1]).toEqual({ who: 'b', ids: ['dlv_2', 'dlv_3', 'dlv_4'] })
    held.open()
    await first
    expect(committed).toEqual({ a: ['dlv_1', 'dlv_6'], b: ['dlv_2', 'dlv_3', 'dlv_4'] })
    expect((await a.all('webhook_deliveries')).map((d) => d.id)).toEqual(['dlv_5'])
  })

  it("a transaction that lost three times runs alone among its partner's; other partners' go on", async () => {
    const url = freshDatabaseUrl()
    const state = await open(url)
    const { client } = await connect(url)
    // The advisory locks held on p1's turn, as PostgreSQL shows them (pg_locks is the whole
    // server's: other tests' sandboxes on it hold their own partners' turns meanwhile).
    const schema = new URL(url).searchParams.get('schema') as string
    const [classid, objid] = turns(schema, 'p1').key.split(', ').map(Number) as [number, number]
    const advisory = async () =>
      (
        await client.query<{ mode: string }>(
          "SELECT mode FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 ORDER BY mode",
          [classid, objid >>> 0],
        )
      ).rows.map((row) => row.mode)
    const order: string[] = []
    let attempts = 0
    let tries = 0
    let next: Promise<void> | undefined
    const held: string[][] = []
    await state.transaction(
      async (tx) => {
        held.push(await advisory())
        // As a serialization failure would: the attempt is run again.
        if (++attempts <= 3) throw Object.assign(new Error('lost a conflict'), { code: '40001' })
        next = state.transaction(
          async (other) => {
            tries++
            order.push('p1, begun meanwhile')
            other.put('users', user(20))
          },
          { partner: 'p1' },
        )
        // p2's transaction runs and commits meanwhile.
        await state.transaction(async (other) => other.put('users', user(21, 'p2')), {
          partner: 'p2',
        })
        order.push('alone')
        tx.put('users', user(22))
      },
      { partner: 'p1' },
    )
    await next
    // Among others its partner's turn is held shared; alone, exclusive (and given back).
    expect(held).toEqual([['ShareLock'], ['ShareLock'], ['ShareLock'], ['ExclusiveLock']])
    expect(attempts).toBe(4)
    // p1's other transaction found the turn taken, and ran once it was given back.
    expect(order).toEqual(['alone', 'p1, begun meanwhile'])
    expect(tries).toBe(1)
    expect((await state.all('users')).map((u) => u.id)).toEqual([
      'u-1',
      'u-2',
      'u-3',
      'u-21',
      'u-22',
      'u-20',
    ])
    expect(await advisory()).toEqual([])
  })

  it('holds as many transactions open at once as ?pool= has connections; the rest wait', async () => {
    const state = await open(`${freshDatabaseUrl()}&pool=2`)
    let now = 0
    let most = 0
    const held = gate()
    const all = Array.from({ length: 6 }, (_, n) =>
      state.transaction(async (tx) => {
        most = Math.max(most, ++now)
        await held.passed
        tx.put('users', user(10 + n))
        now--
      }),
    )
    await vi.waitFor(() => expect(now).toBe(2))
    held.open()
    await Promise.all(all)
    expect(most).toBe(2)
    expect(await state.count('users_by_partner', 'p1')).toBe(8)
  })
})

describe('the database URL', () => {
  it('reads ?schema= and ?pool= out of it, refusing a pool that is no whole number from 1 to 100', () => {
    const base = 'postgres://sandbox:secret@db:5432/sandbox'
    expect(DEFAULT_POOL).toBe(10)
    expect(MAX_POOL).toBe(100)
    expect(parseDatabaseUrl(base)).toEqual({
      url: base,
      schema: DEFAULT_SCHEMA,
      pool: DEFAULT_POOL,
    })
    expect(DEFAULT_SCHEMA).toBe('partner_sandbox')
    expect(parseDatabaseUrl(`${base}?schema=qa&pool=12&sslmode=require`)).toEqual({
      url: `${base}?sslmode=require`,
      schema: 'qa',
      pool: 12,
    })
    expect(parseDatabaseUrl(`${base}?pool=1`).pool).toBe(1)
    expect(parseDatabaseUrl(`${base}?pool=100`).pool).toBe(100)
    for (const bad of ['0', '101', '2.5', 'ten', '', '-1', '1e1']) {
      expect(() => parseDatabaseUrl(`${base}?pool=${bad}`), bad).toThrow(
        `the database pool "${bad}" must be a whole number from 1 to 100`,
      )
    }
    for (const bad of ['qa-1', '1qa', 'qa;drop', `q${'a'.repeat(63)}`]) {
      expect(() => parseDatabaseUrl(`${base}?schema=${encodeURIComponent(bad)}`), bad).toThrow(
        `the database schema "${bad}" must be a plain SQL name (letters, digits, _)`,
      )
    }
  })
})
