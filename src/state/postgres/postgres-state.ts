import { randomUUID } from 'node:crypto'
import postgres, { type ReservedSql, type Sql, type TransactionSql } from 'postgres'
import {
  type CollectionName,
  type Collections,
  type CollectionsData,
  collectionNames,
  keptOnReplace,
} from '../../store/records.js'
import { SCHEMA_VERSION, SNAPSHOT_FORMAT, type SnapshotDoc } from '../../store/snapshot-file.js'
import { checkScope } from '../../store/tenants.js'
import type { IndexName, IndexRow } from '../indexes.js'
import type {
  Change,
  EphemeralPut,
  RangeOptions,
  ReplaceListener,
  State,
  StateReader,
  StateTx,
  TenantScope,
} from '../seam.js'
import {
  ChangeNotices,
  NOTICE_ALONE,
  type NoticeParts,
  type TouchedKeys,
  touch,
} from './change-notices.js'
import { EphemeralWrites } from './ephemeral-writes.js'
import { countsTable, indexColumns, layouts } from './layout.js'
import { lockSchema, migrate, quoteIdent } from './migrate.js'
import { withRetries } from './retries.js'
import {
  batchWriteNoticeOf,
  batchWriteOf,
  columnsOf,
  type IndexSql,
  indexSql,
  movedBetween,
  scopedIndexSql,
  tableSql,
} from './statements.js'

type Row = Record<string, unknown>
type Query = (text: string, params?: unknown[]) => Promise<Row[]>

export interface PostgresStateOptions {
  /** `postgres://user:password@host:port/database`, with an optional `?schema=` (default below). */
  url: string
  /** The rows of a new database, and of every reset. */
  seed: () => CollectionsData
  /** The sandbox's time, for an export's `saved_at`. */
  now?: () => string
  /** Connections of this replica's pool (the URL's `?pool=`, else DEFAULT_POOL). */
  poolSize?: number
  /** How long catchUp waits for a commit number nobody announced (change-notices.ts). */
  gapWaitMs?: number
}

/** The schema the sandbox's tables live in, unless the URL's `?schema=` names another. */
export const DEFAULT_SCHEMA = 'partner_sandbox'

/**
 * Connections per replica, unless the URL's `?pool=` says otherwise: also the most
 * transactions it holds open at once (each holds one connection to its end). Few, because
 * statements made while every connection is busy queue behind one another on a connection and
 * go out in one write (the driver's pipelining), and fewer SERIALIZABLE transactions overlap
 * and run again; with 10, each went out alone and woke a backend of its own
 * (docs/performance.md). docs/postgres.md says when more help.
 */
export const DEFAULT_POOL = 3
/** The largest `?pool=`. */
export const MAX_POOL = 100

/**
 * The PostgreSQL engine of the state seam: every collection a table (layout.ts), every read a
 * query, every transaction a SERIALIZABLE one, so any number of replicas on one database behave
 * as one sandbox whose writers never interleave. A transaction that loses a conflict to another
 * is run again from the start (retries.ts), as the memory engine's queue would have run it
 * after the other. Its writes are sent as they are made, on the transaction's connection, and
 * awaited at its commit.
 */
export class PostgresState implements State {
  private constructor(
    private readonly sql: Sql,
    readonly schema: string,
    private readonly options: PostgresStateOptions,
    private readonly notices: ChangeNotices,
  ) {}

  /** Connects, migrates, and seeds a new database (once, under the schema's lock). */
  static async open(options: PostgresStateOptions): Promise<PostgresState> {
    const { url, schema, pool } = parseDatabaseUrl(options.url)
    const sql = postgres(url, {
      max: options.poolSize ?? pool,
      onnotice: () => {},
      connection: { search_path: schema, application_name: 'partner-sandbox' },
    })
    try {
      await migrate(sql, schema)
      await seedOnce(sql, schema, options.seed)
      const fetchRows = async (name: CollectionName, ids: string[]) => {
        const found = await sql.unsafe<{ row: Row }[]>(tableSql[name].getMany, [ids], {
          prepare: true,
        })
        return new Map(found.map(({ row }) => [row.id as string, row]))
      }
      const notices = await ChangeNotices.listen(sql, schema, randomUUID(), fetchRows, {
        gapWaitMs: options.gapWaitMs,
      })
      // Listening now: every commit before this one was made before this replica started.
      const [last] = await sql.unsafe<{ n: string }[]>(LAST_COMMIT)
      notices.startAt(Number(last?.n ?? 0))
      return new PostgresState(sql, schema, options, notices)
    } catch (error) {
      await sql.end({ timeout: 1 })
      throw error
    }
  }

  get version(): number {
    return this.notices.version
  }

  keyVersion(index: IndexName, key: string): number {
    return this.notices.keyVersion(index, key)
  }

  private readonly query: Query = (text, params = []) =>
    this.sql.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<Row[]>

  /** The counted keys whose fold is under way (one at a time each). */
  private readonly folding = new Set<string>()

  /**
   * Folds a counted key's running counts, outside any transaction and without waiting: a
   * fold that fails (another replica's at the same time) changes nothing, and the next count
   * of the key asks again.
   */
  private readonly fold: Fold = (index, key) => {
    const name = `${index}\0${key}`
    const text = indexSql[index].fold
    if (!text || this.folding.has(name)) return
    this.folding.add(name)
    void this.query(text, [key])
      .catch(() => {})
      .finally(() => this.folding.delete(name))
  }

  private readonly reader = new PgReader(this.query, this.fold)

  get = this.reader.get.bind(this.reader)
  lookup = this.reader.lookup.bind(this.reader)
  lookupOne = this.reader.lookupOne.bind(this.reader)
  range = this.reader.range.bind(this.reader)
  count = this.reader.count.bind(this.reader)
  has = this.reader.has.bind(this.reader)
  keys = this.reader.keys.bind(this.reader)
  all = this.reader.all.bind(this.reader)

  tenant(partnerId: string): StateReader {
    return new PgReader(this.query, this.fold, partnerId)
  }

  async transaction<T>(fn: (tx: StateTx) => Promise<T>, scope?: TenantScope): Promise<T> {
    const { result, tx, number } = await withRetries(() => this.attempt(fn, scope))
    this.notices.committed(tx.changes, tx.touched, number)
    tx.committed()
    return result
  }

  /**
   * One attempt of a SERIALIZABLE transaction, on a connection of its own. Not sql.begin:
   * postgres.js 3.4.9 can send its BEGIN down a busy connection's pipeline without reserving
   * the connection (porsager/postgres#823, #1189), which under load failed the transaction
   * with UNSAFE_TRANSACTION (a 500) or left it open for unrelated queries (a webhook attempt
   * recorded in it was lost, and made again). sql.reserve() takes an idle connection only and
   * holds it until released.
   */
  private async attempt<T>(fn: (tx: StateTx) => Promise<T>, scope: TenantScope | undefined) {
    const reserved = await this.sql.reserve()
    const sql = reserved as unknown as TransactionSql
    const tx = new PgTx(sql, this.fold, scope?.partner)
    let number = 0
    try {
      // Sent, not awaited alone: it goes with the transaction's first statement, whose answer
      // comes after its own (one round trip fewer per transaction).
      tx.begin()
      const result = await fn(tx)
      // The last write (the puts held, with the notice) and the COMMIT go together. A last
      // write that failed aborted the transaction, so its COMMIT only rolled it back; a COMMIT
      // that failed leaves the number taken, said below to be a gap. The notice names the keys
      // the writes sent before it moved, so it is made once they have answered.
      await tx.written()
      const numbered = tx.sendLast(this.notices.noticeOf(tx.changes, tx.touched))
      const committed = reserved.unsafe('COMMIT').execute()
      committed.catch(() => {})
      number = (await numbered) ?? 0
      await tx.finish()
      await committed
      return { result, tx, number }
    } catch (error) {
      await reserved.unsafe('ROLLBACK').catch(() => {})
      // A last write that failed as it ran may have taken its number before it failed: the
      // session's last number says (an older one, said again, is one every replica heard).
      if (number === 0 && tx.lastRan) number = await lastTaken(reserved)
      // A commit that failed (a serialization failure is often found only then) took its
      // number: say it will never come, or every replica's next request waits for it.
      if (number > 0) void this.notices.gap(this.sql, number).catch(() => {})
      // The statements after a failed one only say the transaction was aborted: the first
      // failure says why (a serialization failure is run again).
      throw (error as { code?: string }).code === '25P02' ? (tx.failure ?? error) : error
    } finally {
      reserved.release()
    }
  }

  /** Ephemeral puts, sent together while a statement of theirs is on its way. */
  private readonly ephemeral = new EphemeralWrites(this.query)

  async putEphemeral<K extends CollectionName>(collection: K, row: Collections[K]): Promise<void> {
    await this.putEphemerals([{ collection, row } as EphemeralPut])
  }

  async putEphemerals(puts: readonly EphemeralPut[]): Promise<void> {
    for (const { collection } of puts)
      if (!tableSql[collection].layout.ephemeral) throw new Error(`${collection} is not ephemeral`)
    if (puts.length > 0) await this.ephemeral.put(puts)
  }

  catchUp(): Promise<void> {
    return this.notices.catchUp(() => this.lastAnnounced())
  }

  /** The callers of lastAnnounced waiting for the next read, not yet sent. */
  private lastWaiting: Waiting[] = []
  /** Increments asked for in this turn of the event loop, by counter and window. */
  private increments = new Map<string, { name: string; window: number; waiting: Waiting[] }>()
  private flushing = false

  /**
   * The number of the last commit announced. Requests that ask within one turn of the event
   * loop share one read, sent once they have all asked: each asked before it was sent, so it
   * counts every commit answered before that request came. Under load, one read serves many.
   */
  private lastAnnounced(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.lastWaiting.push({ resolve, reject })
      this.flushSoon()
    })
  }

  /**
   * Every increment of one counter asked for in the same turn of the event loop is one
   * statement adding their number: under load a partner's counter row is locked and written
   * once per turn, not once per request queued on its lock. Each caller still gets its own
   * count, in the order asked.
   */
  increment(name: string, window: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const key = `${name}\0${window}`
      const batch = this.increments.get(key) ?? { name, window, waiting: [] }
      this.increments.set(key, batch)
      batch.waiting.push({ resolve, reject })
      this.flushSoon()
    })
  }

  private flushSoon(): void {
    if (this.flushing) return
    this.flushing = true
    setImmediate(() => this.flush())
  }

  /**
   * Sends what this turn asked for: each counter's increment, the first of them also reading
   * the last commit number when a request asked for it (one statement, not two: under load
   * most turns ask for both); else that read alone.
   */
  private flush(): void {
    this.flushing = false
    const batches = [...this.increments.values()]
    let last: Waiting[] | undefined = this.lastWaiting.length > 0 ? this.lastWaiting : undefined
    this.increments = new Map()
    this.lastWaiting = []
    const answer = (waiting: Waiting[], value: unknown) => {
      for (const w of waiting) w.resolve(Number(value ?? 0))
    }
    const fail = (waiting: Waiting[], error: unknown) => {
      for (const w of waiting) w.reject(error)
    }
    for (const { name, window, waiting } of batches) {
      const withLast = last
      last = undefined
      this.query(withLast ? INCREMENT_AND_LAST : INCREMENT, [name, window, waiting.length]).then(
        ([counted]) => {
          const first = (counted?.count as number) - waiting.length + 1
          for (const [i, w] of waiting.entries()) w.resolve(first + i)
          if (withLast) answer(withLast, counted?.last)
        },
        (error: unknown) => {
          fail(waiting, error)
          if (withLast) fail(withLast, error)
        },
      )
    }
    if (last) {
      const waiting = last
      this.query(LAST_COMMIT).then(
        ([found]) => answer(waiting, found?.n),
        (error: unknown) => fail(waiting, error),
      )
    }
  }

  onCommit(listener: (changes: readonly Change[]) => void): () => void {
    return this.notices.onCommit(listener)
  }

  onReplace(listener: ReplaceListener): void {
    this.notices.onReplace(listener)
  }

  async replaceAll(collections: CollectionsData): Promise<void> {
    // Run again when chosen as a deadlock's loser: its TRUNCATE locks table after table, so a
    // transaction already holding one of them (a sweep, a delivery's claim) that then waits
    // for one the TRUNCATE holds makes a cycle PostgreSQL breaks by failing one side.
    const number = await withRetries(() =>
      this.sql.begin(async (sql) => {
        await lockSchema(sql, this.schema)
        await writeAll(sql, collections)
        return this.notices.notifyReplace(sql)
      }),
    )
    await this.notices.replaced(number)
  }

  async reset(): Promise<void> {
    const [stored] = await this.query("SELECT value FROM sandbox_settings WHERE name = 'seed'")
    await this.replaceAll((stored?.value as CollectionsData) ?? this.options.seed())
  }

  async export(): Promise<SnapshotDoc> {
    const collections = {} as CollectionsData
    await this.sql.begin('isolation level repeatable read read only', async (sql) => {
      for (const name of collectionNames) {
        const rows = {} as Record<string, Row>
        if (!layouts[name].ephemeral) {
          for (const { row } of await sql.unsafe<{ row: Row }[]>(tableSql[name].all))
            rows[row.id as string] = row
        }
        ;(collections as Record<string, unknown>)[name] = rows
      }
    })
    return {
      format: SNAPSHOT_FORMAT,
      schema_version: SCHEMA_VERSION,
      seq: this.notices.version,
      saved_at: this.options.now?.() ?? new Date().toISOString(),
      collections,
    }
  }

  async close(): Promise<void> {
    await this.notices.close()
    await this.sql.end({ timeout: 5 })
  }
}

/** The number of the last commit announced (0 before the first). */
const LAST_COMMIT =
  'SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM sandbox_commits'
const INCREMENT =
  'INSERT INTO sandbox_counters AS c (name, win, count) VALUES ($1, $2, $3) ' +
  'ON CONFLICT (name) DO UPDATE SET win = EXCLUDED.win, ' +
  'count = CASE WHEN c.win = EXCLUDED.win THEN c.count + EXCLUDED.count ELSE EXCLUDED.count END ' +
  'RETURNING count'
/** INCREMENT, also answering LAST_COMMIT's number as `last`. */
const INCREMENT_AND_LAST = `${INCREMENT}, (${LAST_COMMIT}) AS last`

/** A caller waiting for its count (increment). */
interface Waiting {
  resolve: (count: number) => void
  reject: (error: unknown) => void
}

/** Folds a counted key's running counts (PostgresState.fold). */
type Fold = (index: IndexName, key: string) => void

/** Running-count rows a count sums before it asks for them to be folded into one. */
const FOLD_AT = 32

/**
 * The reads, over any connection: the pool's, or a transaction's. With `partner` (State.tenant,
 * a transaction's scope), a read of a tenant table asks for that partner's rows only: its
 * statements name the partner, so a distributed table is read on the partner's node alone.
 */
class PgReader implements StateReader {
  protected readonly query: Query

  constructor(
    query: Query,
    private readonly fold: Fold,
    readonly partner?: string,
  ) {
    // A text column cannot hold NUL, so no row has an id or key with one (a token sent as
    // %00): nothing is found, as in memory, where PostgreSQL would refuse the parameter.
    this.query = (text, params = []) =>
      params.some((p) => typeof p === 'string' && p.includes('\0')) ? noRows : query(text, params)
  }

  /** The table's statements of this reader's partner, when it has one and the table is a tenant's. */
  private tableOf(collection: CollectionName) {
    return this.partner === undefined ? undefined : tableSql[collection].scoped
  }

  /** The index's statements and their last parameter, the partner, when scoped. */
  private indexOf(index: IndexName): { sql: IndexSql; tail: string[] } {
    const scoped = this.partner === undefined ? undefined : scopedIndexSql[index]
    return scoped
      ? { sql: scoped, tail: [this.partner as string] }
      : { sql: indexSql[index], tail: [] }
  }

  async get<K extends CollectionName>(collection: K, id: string) {
    const scoped = this.tableOf(collection)
    const [found] = scoped
      ? await this.query(scoped.get, [id, this.partner])
      : await this.query(tableSql[collection].get, [id])
    return found?.row as Collections[K] | undefined
  }

  /** Before a read of an index (or of a whole table): PgTx sends the writes it holds first. */
  protected beforeIndexRead(): void {}

  async lookup<I extends IndexName>(index: I, key: string) {
    this.beforeIndexRead()
    const { sql, tail } = this.indexOf(index)
    return rowsOf<IndexRow<I>>(await this.query(sql.lookup, [key, ...tail]))
  }

  async lookupOne<I extends IndexName>(index: I, key: string) {
    this.beforeIndexRead()
    const { sql, tail } = this.indexOf(index)
    const [found] = await this.query(sql.lookupOne, [key, ...tail])
    return found?.row as IndexRow<I> | undefined
  }

  async range<I extends IndexName>(index: I, key: string, options: RangeOptions = {}) {
    this.beforeIndexRead()
    const limit = options.limit ?? null
    if (limit !== null && limit <= 0) return []
    const { sql, tail } = this.indexOf(index)
    const rows =
      options.after === undefined
        ? await this.query(options.reverse ? sql.range.reverse : sql.range.forward, [
            key,
            limit,
            ...tail,
          ])
        : await this.query(options.reverse ? sql.range.reverseAfter : sql.range.forwardAfter, [
            key,
            options.after,
            limit,
            ...tail,
          ])
    return rowsOf<IndexRow<I>>(rows)
  }

  async count(index: IndexName, key: string) {
    this.beforeIndexRead()
    const { sql, tail } = this.indexOf(index)
    // A counted index's count is its key's, scoped or not (its statement takes no partner).
    const params = indexColumns[index].columns.counted ? [key] : [key, ...tail]
    const [found] = await this.query(sql.count, params)
    if (((found?.parts as number | undefined) ?? 0) > FOLD_AT) this.fold(index, key)
    return (found?.n as number) ?? 0
  }

  async has(index: IndexName, key: string, id: string) {
    this.beforeIndexRead()
    const { sql, tail } = this.indexOf(index)
    return (await this.query(sql.has, [key, id, ...tail])).length > 0
  }

  async keys(index: IndexName) {
    this.beforeIndexRead()
    return (await this.query(indexSql[index].keys)).map((found) => found.k as string)
  }

  async all<K extends CollectionName>(collection: K) {
    this.beforeIndexRead()
    const scoped = this.tableOf(collection)
    return rowsOf<Collections[K]>(
      scoped
        ? await this.query(scoped.all, [this.partner])
        : await this.query(tableSql[collection].all),
    )
  }
}

const noRows: Promise<Row[]> = Promise.resolve([])

function rowsOf<T>(found: Row[]): T[] {
  const out = new Array<T>(found.length)
  for (let i = 0; i < found.length; i++) out[i] = (found[i] as Row).row as T
  return out
}

/**
 * One attempt of a transaction. Its puts are held and go out as one statement before the
 * first read that could see them, a remove, or the commit, on the transaction's connection
 * (a later read of it sees them); their answers are awaited at `finish`, so a request's
 * writes cost one statement and one round trip together, not one each.
 */
class PgTx extends PgReader implements StateTx {
  readonly changes: Change[] = []
  readonly touched: TouchedKeys = new Map()
  /**
   * The rows this transaction read by id or wrote, by collection and id: a SERIALIZABLE
   * transaction reads one snapshot plus its own writes, so a row read again is the row it
   * already has (a request that reads its user three times asks PostgreSQL once). Rows are
   * never changed in place (the memory engine hands out its own), so sharing one is safe.
   */
  private readonly rows = new Map<string, Promise<unknown>>()
  private pending: Promise<unknown>[] = []
  /** The writes sent whose answers name keys the notice carries (puts sent, removes). */
  private answering: Promise<unknown>[] = []
  /** The last write failed as it ran (not for an earlier failure): it may have taken a number. */
  lastRan = false
  /**
   * The rows put and not yet sent, by collection and id, each with its upsert's parameters:
   * sent together as one statement (batchWriteOf) before the next read that could see them
   * (an index's, a whole table's: a row read by id is the memo's), a remove, or the commit.
   * A row put again is sent once, as last put, in the place it was first put.
   */
  private held = new Map<CollectionName, Map<string, (string | null)[]>>()
  /** The first statement that failed: it aborted the transaction. */
  failure: unknown
  private after: (() => void)[] = []
  private open = true

  constructor(
    private readonly sql: TransactionSql,
    fold: Fold,
    partner: string | undefined,
  ) {
    super(
      (text, params = []) => {
        // A write that failed has aborted the transaction: say why, not "transaction aborted".
        if (this.failure !== undefined) return Promise.reject(this.failure)
        const read = sql.unsafe(text, params as never[], { prepare: true })
        return (read as unknown as Promise<Row[]>).catch((error: unknown) => {
          this.failure ??= error
          throw error
        })
      },
      fold,
      partner,
    )
  }

  override get<K extends CollectionName>(collection: K, id: string) {
    const name = rowName(collection, id)
    let found = this.rows.get(name) as Promise<Collections[K] | undefined> | undefined
    if (!found) {
      found = super.get(collection, id)
      this.rows.set(name, found)
      // A read that failed is not remembered (the transaction fails with it anyway).
      found.catch(() => this.rows.get(name) === found && this.rows.delete(name))
    }
    return found
  }

  put<K extends CollectionName>(collection: K, row: Collections[K]): void {
    const table = tableSql[collection]
    if (this.partner !== undefined && table.layout.byPartner)
      checkScope(collection, row as Row, this.partner)
    if (!this.open) throw new Error('write after the transaction ended')
    const id = (row as Row).id as string
    this.rows.set(rowName(collection, id), Promise.resolve(row))
    let rows = this.held.get(collection)
    if (!rows) {
      rows = new Map()
      this.held.set(collection, rows)
    }
    const values = table.upsert.params(row as Row)
    // A row put again under another key or order goes after the rows put since, where the
    // memory engine places a row that moved; else it keeps its place.
    const held = rows.get(id)
    if (held && movedBetween(held, values)) rows.delete(id)
    rows.set(id, values)
    for (const ix of table.layout.indexes) {
      const key = ix.versioned ? ix.keyOf(row as never) : undefined
      if (key !== undefined) touch(this.touched, ix.name, key)
    }
    this.changes.push({ collection, id: (row as Row).id as string, row: row as Row })
  }

  remove(collection: CollectionName, id: string): void {
    // Scoped: another partner's row is not this transaction's to remove (nor to see).
    const scoped = this.partner === undefined ? undefined : tableSql[collection].scoped
    const [text, params] = scoped
      ? [scoped.remove, [id, this.partner]]
      : [tableSql[collection].remove, [id]]
    this.rows.set(rowName(collection, id), Promise.resolve(undefined))
    // After the puts held: a row put then removed is gone, as in the order they were made.
    this.sendHeld()
    this.send(text, params, (removed) => this.touchAll(removed[0]))
    this.changes.push({ collection, id, row: undefined })
  }

  afterCommit(fn: () => void): void {
    this.after.push(fn)
  }

  /** Due rows of an ordered index, locked for this transaction; rows others hold are skipped. */
  async takeDue<I extends IndexName>(index: I, key: string, upTo: string, limit: number) {
    this.beforeIndexRead()
    const { layout, columns: ix } = indexColumns[index]
    if (!ix.order) throw new Error(`takeDue needs an ordered index, not ${index}`)
    const mine = this.partner !== undefined && layout.byPartner
    const text =
      `SELECT row FROM ${layout.table} WHERE ${ix.key} = $1 AND ${ix.order} <= $2` +
      `${mine ? ' AND partner_id = $4' : ''} ORDER BY ${ix.order}, ${ix.pos} LIMIT $3 ` +
      'FOR UPDATE SKIP LOCKED'
    const params = mine ? [key, upTo, limit, this.partner] : [key, upTo, limit]
    return rowsOf<IndexRow<I>>(await this.query(text, params))
  }

  /** Opens the transaction: sent at once, its answer awaited with the writes' (`finish`). */
  begin(): void {
    this.send('BEGIN ISOLATION LEVEL SERIALIZABLE', [])
  }

  /** Sends a statement; `answered`, when given, makes it a write whose answer names keys. */
  private send(text: string, params: unknown[], answered?: (rows: Row[]) => void): void {
    if (!this.open) throw new Error('write after the transaction ended')
    const query = this.sql.unsafe(text, params as never[], { prepare: true })
    const sent = query.execute().then(
      (rows) => answered?.(rows as unknown as Row[]),
      (error: unknown) => {
        this.failure ??= error
      },
    )
    this.pending.push(sent)
    if (answered) this.answering.push(sent)
  }

  /** Notes every versioned key a row of answers names (an object by index name). */
  private touchAll(keys: Record<string, unknown> | null | undefined): void {
    for (const [index, key] of Object.entries(keys ?? {}))
      if (typeof key === 'string') touch(this.touched, index as IndexName, key)
  }

  protected override beforeIndexRead(): void {
    this.sendHeld()
  }

  /**
   * Sends the puts held as one statement (collections in one order: one text for each set of
   * them), noting the keys each row had before under versioned indexes, as a put's own
   * upsert would have answered them.
   */
  private sendHeld(): void {
    if (this.held.size === 0) return
    const { collections, params } = this.takeHeld()
    this.send(batchWriteOf(collections), params, (before) => {
      for (const { keys } of before as { keys: Record<string, unknown> | null }[])
        this.touchAll(keys)
    })
  }

  /** The puts held, by collection in name order, as batch parameters; none held after. */
  private takeHeld(): { collections: CollectionName[]; params: (string | null)[][] } {
    const held = this.held
    this.held = new Map()
    const collections = [...held.keys()].sort()
    const params: (string | null)[][] = []
    for (const collection of collections)
      params.push(...columnsOf((held.get(collection) as Map<string, (string | null)[]>).values()))
    return { collections, params }
  }

  /** Awaits the writes whose answers name keys; the first failure so far fails the transaction. */
  async written(): Promise<void> {
    await Promise.all(this.answering)
    if (this.failure !== undefined) throw this.failure
  }

  /**
   * Sends the transaction's last write, carrying its notice (undefined when nothing changed):
   * the puts held and the notice in one statement (batchWriteNoticeOf), or the notice alone.
   * Answers its number, undefined if it failed.
   */
  sendLast(notice: NoticeParts | undefined): Promise<number | undefined> {
    if (!notice) return Promise.resolve(0)
    const { collections, params } = this.takeHeld()
    const [text, values] =
      collections.length > 0
        ? [batchWriteNoticeOf(collections), [...params, notice.channel, notice.head, notice.whole]]
        : [NOTICE_ALONE, [notice.channel, notice.head]]
    const number = this.sql
      .unsafe(text, values as never[], { prepare: true })
      .execute()
      .then(
        ([sent]) => {
          const { keys, n } = sent as unknown as {
            keys?: Record<string, unknown>[] | null
            n: string
          }
          for (const moved of keys ?? []) this.touchAll(moved)
          return Number(n)
        },
        (error: unknown) => {
          this.failure ??= error
          this.lastRan = (error as { code?: string }).code !== '25P02'
          return undefined
        },
      )
    this.pending.push(number)
    return number
  }

  /** Awaits every write; the first that failed fails the transaction. */
  async finish(): Promise<void> {
    await Promise.all(this.pending)
    this.pending = []
    if (this.failure !== undefined) throw this.failure
  }

  committed(): void {
    this.open = false
    for (const fn of this.after) fn()
  }
}

/**
 * The commit number a connection took last (0 if none): a last write that failed as it ran
 * took one or not, and a sequence's `currval` is the session's, not undone by a rollback.
 */
async function lastTaken(sql: ReservedSql): Promise<number> {
  try {
    const [taken] = await sql.unsafe<{ n: string }[]>("SELECT currval('sandbox_commits') AS n")
    return Number(taken?.n ?? 0)
  } catch {
    return 0
  }
}

/** A row's name in a transaction's memo (PgTx.rows). */
const rowName = (collection: CollectionName, id: string) => `${collection}\0${id}`

/** Truncates every table a replace covers and writes `collections` into them. */
async function writeAll(sql: TransactionSql, collections: CollectionsData): Promise<void> {
  const replaced = collectionNames.filter((name) => !keptOnReplace.includes(name))
  await sql.unsafe(`TRUNCATE ${replaced.map((name) => layouts[name].table).join(', ')}`)
  // TRUNCATE fires no trigger: the running counts of what it emptied go with it, and the
  // rows written below count themselves again.
  for (const counts of ['sandbox_counts', 'sandbox_ephemeral_counts']) {
    const emptied = replaced.flatMap((name) =>
      countsTable(layouts[name]) === counts
        ? layouts[name].indexes.filter((ix) => ix.counted).map((ix) => ix.name)
        : [],
    )
    if (emptied.length > 0) await sql.unsafe(`DELETE FROM ${counts} WHERE idx = ANY($1)`, [emptied])
  }
  for (const name of replaced) {
    const { upsert } = tableSql[name]
    const rows = Object.values(collections[name] ?? {}) as Row[]
    // Sent without waiting for each answer (one connection keeps them in order).
    const sent: Promise<unknown>[] = []
    for (const row of rows)
      sent.push(sql.unsafe(upsert.text, upsert.params(row) as never[], { prepare: true }).execute())
    await Promise.all(sent)
  }
}

/** On a new database (no seed stored yet): the seed's rows, and the seed itself for resets. */
async function seedOnce(sql: Sql, schema: string, seed: () => CollectionsData): Promise<void> {
  await sql.begin(async (tx) => {
    await lockSchema(tx, schema)
    const [stored] = await tx.unsafe("SELECT 1 FROM sandbox_settings WHERE name = 'seed'")
    if (stored) return
    const data = seed()
    await writeAll(tx, data)
    await tx.unsafe("INSERT INTO sandbox_settings (name, value) VALUES ('seed', $1::text::json)", [
      JSON.stringify(data),
    ])
  })
}

/**
 * The driver's URL, the schema named by its `?schema=` and the pool size named by its `?pool=`
 * (both removed from what the driver sees).
 */
export function parseDatabaseUrl(raw: string): { url: string; schema: string; pool: number } {
  const url = new URL(raw)
  const schema = url.searchParams.get('schema') || DEFAULT_SCHEMA
  const poolText = url.searchParams.get('pool')
  url.searchParams.delete('schema')
  url.searchParams.delete('pool')
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`the database schema "${schema}" must be a plain SQL name (letters, digits, _)`)
  }
  const pool = poolText === null ? DEFAULT_POOL : Number(poolText)
  if (poolText !== null && (!/^[0-9]+$/.test(poolText) || pool < 1 || pool > MAX_POOL)) {
    throw new Error(`the database pool "${poolText}" must be a whole number from 1 to ${MAX_POOL}`)
  }
  void quoteIdent
  return { url: url.toString(), schema, pool }
}
