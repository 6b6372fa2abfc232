import type pg from 'pg'
import {
  type CollectionName,
  type Collections,
  type CollectionsData,
  collectionNames,
  ephemeralCollections,
  keptOnReplace,
} from '../../store/records.js'
import { SCHEMA_VERSION, SNAPSHOT_FORMAT, type SnapshotDoc } from '../../store/snapshot-file.js'
import { checkScope } from '../../store/tenants.js'
import { outageOf } from '../database-error.js'
import { type IndexName, type IndexRow, indexDefs } from '../indexes.js'
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
import { tableOf as indexCollection } from './index-sql.js'
import { lockSchema, migrate } from './migrate.js'
import { createPool } from './pool.js'
import { withRetries } from './retries.js'
import { paramsOf, recordOf } from './rows.js'
import { indexStatements, insertMany, partnerColumn, tableStatements } from './statements.js'
import { tables } from './tables.js'

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
  /** Told of what goes wrong away from any request (a pooled connection lost while idle). */
  onWarning?: (message: string) => void
}

/** The schema the sandbox's tables live in, unless the URL's `?schema=` names another. */
export const DEFAULT_SCHEMA = 'partner_sandbox'

/**
 * Connections per replica, unless the URL's `?pool=` says otherwise: also the most
 * transactions it holds open at once (each holds one connection to its end).
 */
export const DEFAULT_POOL = 10
/** The largest `?pool=`. */
export const MAX_POOL = 100

/**
 * The PostgreSQL engine of the state seam, read through: every read is a query, in the
 * request's transaction when it writes; every transaction a SERIALIZABLE one, run again when it
 * loses a conflict (retries.ts), as the memory engine's queue would have run it after the other.
 * A replica keeps no copy of any row, so any number of them on one database answer as one
 * sandbox, and none needs to hear of another's commits. A query that cannot reach the database
 * fails with DatabaseUnavailable (a 503); the pool connects again when it is back.
 */
export class PostgresState implements State {
  private readonly commitListeners = new Set<(changes: readonly Change[]) => void>()
  private readonly replaceListeners: ReplaceListener[] = []
  private readonly reader: PgReader

  private constructor(
    private readonly pool: pg.Pool,
    readonly schema: string,
    private readonly options: PostgresStateOptions,
  ) {
    this.reader = new PgReader(this.query)
  }

  /** Connects, migrates, and seeds a new database (once, under the schema's lock). */
  static async open(options: PostgresStateOptions): Promise<PostgresState> {
    const { url, schema, pool: size } = parseDatabaseUrl(options.url)
    const pool = createPool({
      url,
      schema,
      size: options.poolSize ?? size,
      applicationName: 'partner-sandbox',
      onIdleError: (error) =>
        options.onWarning?.(`a pooled PostgreSQL connection was lost: ${error.message}`),
    })
    try {
      const client = await pool.connect()
      try {
        await migrate(client, schema)
        await seedOnce(client, schema, options.seed)
      } finally {
        client.release()
      }
      return new PostgresState(pool, schema, options)
    } catch (error) {
      await pool.end().catch(() => {})
      throw error
    }
  }

  /** A statement on any pooled connection; an outage becomes DatabaseUnavailable. */
  private readonly query: Query = async (text, params = []) => {
    try {
      return (await this.pool.query(text, params)).rows
    } catch (error) {
      throw outageOf(error, this.options.url)
    }
  }

  get<K extends CollectionName>(collection: K, id: string) {
    return this.reader.get(collection, id)
  }
  lookup<I extends IndexName>(index: I, key: string) {
    return this.reader.lookup(index, key)
  }
  lookupOne<I extends IndexName>(index: I, key: string) {
    return this.reader.lookupOne(index, key)
  }
  range<I extends IndexName>(index: I, key: string, options?: RangeOptions) {
    return this.reader.range(index, key, options)
  }
  count(index: IndexName, key: string) {
    return this.reader.count(index, key)
  }
  has(index: IndexName, key: string, id: string) {
    return this.reader.has(index, key, id)
  }
  keys(index: IndexName) {
    return this.reader.keys(index)
  }
  all<K extends CollectionName>(collection: K) {
    return this.reader.all(collection)
  }

  tenant(partnerId: string): StateReader {
    return new PgReader(this.query, partnerId)
  }

  async transaction<T>(fn: (tx: StateTx) => Promise<T>, scope?: TenantScope): Promise<T> {
    const { result, changes, after } = await withRetries(() => this.attempt(fn, scope))
    for (const run of after) run()
    if (changes.length > 0) for (const listener of this.commitListeners) listener(changes)
    return result
  }

  /** One attempt of a SERIALIZABLE transaction, on a connection of its own. */
  private async attempt<T>(fn: (tx: StateTx) => Promise<T>, scope: TenantScope | undefined) {
    const client = await this.connect()
    let broken: Error | undefined
    const tx = new PgTx(client, this.options.url, scope?.partner)
    try {
      await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE')
      const result = await fn(tx)
      await tx.written()
      await client.query('COMMIT')
      return { result, changes: tx.changes, after: tx.after }
    } catch (error) {
      await client.query('ROLLBACK').catch((lost: Error) => {
        broken = lost
      })
      // The statements after a failed one only say the transaction was aborted: the first
      // failure says why (a serialization failure is run again).
      const cause = (error as { code?: string }).code === '25P02' ? (tx.failure ?? error) : error
      throw outageOf(cause, this.options.url)
    } finally {
      tx.close()
      client.release(broken)
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect()
    } catch (error) {
      throw outageOf(error, this.options.url)
    }
  }

  async putEphemeral<K extends CollectionName>(collection: K, row: Collections[K]): Promise<void> {
    await this.putEphemerals([{ collection, row } as EphemeralPut])
  }

  /** The rows, one statement per collection (the last put of a row wins), outside any transaction. */
  async putEphemerals(puts: readonly EphemeralPut[]): Promise<void> {
    const byCollection = new Map<CollectionName, Map<string, Row>>()
    for (const { collection, row } of puts) {
      if (!ephemeralCollections.includes(collection))
        throw new Error(`${collection} is not ephemeral`)
      let rows = byCollection.get(collection)
      if (!rows) {
        rows = new Map()
        byCollection.set(collection, rows)
      }
      const id = (row as unknown as Row).id as string
      rows.delete(id)
      rows.set(id, row as unknown as Row)
    }
    await Promise.all(
      [...byCollection].map(([collection, rows]) =>
        this.query(
          insertMany(collection, rows.size, true),
          [...rows.values()].flatMap((row) => paramsOf(collection, row)),
        ),
      ),
    )
  }

  async increment(name: string, window: number): Promise<number> {
    const [counted] = await this.query(INCREMENT, [name, window])
    return Number(counted?.count ?? 0)
  }

  /** Hears this replica's own commits (a hint to look sooner; other replicas' are not heard). */
  onCommit(listener: (changes: readonly Change[]) => void): () => void {
    this.commitListeners.add(listener)
    return () => this.commitListeners.delete(listener)
  }

  onReplace(listener: ReplaceListener): void {
    this.replaceListeners.push(listener)
  }

  async replaceAll(collections: CollectionsData): Promise<void> {
    // Run again when chosen as a deadlock's loser: its TRUNCATE locks table after table.
    await withRetries(async () => {
      const client = await this.connect()
      let broken: Error | undefined
      try {
        await client.query('BEGIN')
        await lockSchema(client, this.schema)
        await writeAll(client, collections)
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK').catch((lost: Error) => {
          broken = lost
        })
        throw outageOf(error, this.options.url)
      } finally {
        client.release(broken)
      }
    })
    await Promise.allSettled(this.replaceListeners.map((listener) => listener()))
  }

  async reset(): Promise<void> {
    const [stored] = await this.query("SELECT value FROM sandbox_settings WHERE name = 'seed'")
    await this.replaceAll((stored?.value as CollectionsData) ?? this.options.seed())
  }

  async export(): Promise<SnapshotDoc> {
    const collections = {} as Record<string, Record<string, Row>>
    const client = await this.connect()
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      for (const name of collectionNames) {
        const rows: Record<string, Row> = {}
        if (!ephemeralCollections.includes(name)) {
          const found = await client.query(tableStatements(name, false).all)
          for (const row of found.rows) rows[row.id as string] = recordOf(name, row)
        }
        collections[name] = rows
      }
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw outageOf(error, this.options.url)
    } finally {
      client.release()
    }
    return {
      format: SNAPSHOT_FORMAT,
      schema_version: SCHEMA_VERSION,
      seq: 0,
      saved_at: this.options.now?.() ?? new Date().toISOString(),
      collections: collections as unknown as CollectionsData,
    }
  }

  /** Whether the database answers now (the health check's question). */
  async ping(): Promise<void> {
    await this.query('SELECT 1')
  }

  private closed: Promise<void> | undefined

  /** Ends the pool once (a second close answers the first's promise). */
  close(): Promise<void> {
    this.closed ??= this.pool.end()
    return this.closed
  }
}

const INCREMENT =
  'INSERT INTO sandbox_counters AS c (name, win, count) VALUES ($1, $2, 1) ' +
  'ON CONFLICT (name) DO UPDATE SET win = EXCLUDED.win, ' +
  'count = CASE WHEN c.win = EXCLUDED.win THEN c.count + 1 ELSE 1 END RETURNING count'

/**
 * The reads, over any connection: the pool's, or a transaction's. With `partner` (State.tenant,
 * a transaction's scope), a read of one of the partner's tables asks for its rows only.
 */
class PgReader implements StateReader {
  constructor(
    private readonly send: Query,
    readonly partner?: string,
  ) {}

  /**
   * A text column cannot hold NUL, so no row has an id or key with one (a token sent as %00):
   * nothing is found, as in memory, where PostgreSQL would refuse the parameter.
   */
  protected run(text: string, params: unknown[]): Promise<Row[]> {
    if (params.some((p) => typeof p === 'string' && p.includes('\0'))) return noRows
    return this.send(text, params)
  }

  private get scoped(): boolean {
    return this.partner !== undefined
  }

  /** The partner as the last parameter, on the partner's tables, when scoped. */
  private tail(collection: CollectionName): unknown[] {
    return this.scoped && partnerColumn(collection) ? [this.partner] : []
  }

  async get<K extends CollectionName>(collection: K, id: string) {
    const text = tableStatements(collection, this.scoped).get
    const [found] = await this.run(text, [id, ...this.tail(collection)])
    return found ? (recordOf(collection, found) as Collections[K]) : undefined
  }

  private rowsOf<I extends IndexName>(index: I, found: Row[]): IndexRow<I>[] {
    const collection = indexCollection(index)
    return found.map((row) => recordOf(collection, row) as IndexRow<I>)
  }

  async lookup<I extends IndexName>(index: I, key: string) {
    const collection = indexCollection(index)
    const text = indexStatements(index, this.scoped).lookup
    return this.rowsOf(index, await this.run(text, [key, ...this.tail(collection)]))
  }

  async lookupOne<I extends IndexName>(index: I, key: string) {
    const collection = indexCollection(index)
    const text = indexStatements(index, this.scoped).lookupOne
    const [found] = this.rowsOf(index, await this.run(text, [key, ...this.tail(collection)]))
    return found
  }

  async range<I extends IndexName>(index: I, key: string, options: RangeOptions = {}) {
    const limit = options.limit ?? null
    if (limit !== null && limit <= 0) return []
    const collection = indexCollection(index)
    const statements = indexStatements(index, this.scoped)
    const tail = this.tail(collection)
    const found =
      options.after === undefined
        ? await this.run(options.reverse ? statements.reverse : statements.forward, [
            key,
            limit,
            ...tail,
          ])
        : await this.run(options.reverse ? statements.reverseAfter : statements.forwardAfter, [
            key,
            options.after,
            limit,
            ...tail,
          ])
    return this.rowsOf(index, found)
  }

  /**
   * The rows under a key (the partner's, when scoped); a counted index's count is its key's
   * whole count, scoped or not (the caps' keys are partners already).
   */
  async count(index: IndexName, key: string) {
    const scoped = this.scoped && !('counted' in indexDefs[index] && indexDefs[index].counted)
    const collection = indexCollection(index)
    const tail = scoped ? this.tail(collection) : []
    const [found] = await this.run(indexStatements(index, scoped).count, [key, ...tail])
    return Number(found?.n ?? 0)
  }

  async has(index: IndexName, key: string, id: string) {
    const collection = indexCollection(index)
    const text = indexStatements(index, this.scoped).has
    return (await this.run(text, [key, id, ...this.tail(collection)])).length > 0
  }

  async keys(index: IndexName) {
    return (await this.run(indexStatements(index, false).keys, [])).map((row) => row.k as string)
  }

  async all<K extends CollectionName>(collection: K) {
    const text = tableStatements(collection, this.scoped).all
    const found = await this.run(text, this.tail(collection))
    return found.map((row) => recordOf(collection, row) as Collections[K])
  }
}

const noRows: Promise<Row[]> = Promise.resolve([])

/**
 * One attempt of a transaction, on its own connection. Writes are sent as they are made and
 * not awaited one by one: the connection runs statements in the order sent, so a later read of
 * the transaction sees them; their answers are awaited before COMMIT.
 */
class PgTx extends PgReader implements StateTx {
  readonly changes: Change[] = []
  readonly after: (() => void)[] = []
  /** The first statement that failed: it aborted the transaction. */
  failure: unknown
  private pending: Promise<unknown>[] = []
  private open = true

  /**
   * The statement sent last: each waits for the one before (a connection runs one at a time,
   * and node-postgres no longer queues them for us), so writes go out in the order made.
   */
  private last: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly client: pg.PoolClient,
    url: string,
    partner: string | undefined,
  ) {
    super((text, params = []) => {
      const read = this.inTurn(async () => {
        // A write that failed has aborted the transaction: say why, not "transaction aborted".
        if (this.failure !== undefined) throw this.failure
        try {
          return (await client.query(text, params)).rows
        } catch (error) {
          this.failure ??= error
          throw outageOf(error, url)
        }
      })
      return read
    }, partner)
  }

  /** Runs `statement` once every statement sent before it has answered. */
  private inTurn<T>(statement: () => Promise<T>): Promise<T> {
    const next = this.last.then(statement, statement)
    this.last = next.catch(() => {})
    return next
  }

  put<K extends CollectionName>(collection: K, row: Collections[K]): void {
    if (!this.open) throw new Error('write after the transaction ended')
    if (this.partner !== undefined && tables[collection].tenant)
      checkScope(collection, row as Row, this.partner)
    const id = (row as Row).id as string
    this.write(tableStatements(collection, false).upsert, paramsOf(collection, row as Row), () => {
      throw new Error(`a ${collection} row stays with its partner (${id} would move)`)
    })
    this.changes.push({ collection, id: (row as Row).id as string, row: row as Row })
  }

  remove(collection: CollectionName, id: string): void {
    if (!this.open) throw new Error('write after the transaction ended')
    // Scoped: another partner's row is not this transaction's to remove (nor to see).
    const scoped = this.partner !== undefined && partnerColumn(collection) !== undefined
    const text = tableStatements(collection, scoped).remove
    this.write(text, scoped ? [id, this.partner] : [id])
    this.changes.push({ collection, id, row: undefined })
  }

  /** Rows due under `key` (order value at most `upTo`), locked; rows another holds are skipped. */
  async takeDue<I extends IndexName>(index: I, key: string, upTo: string, limit: number) {
    const collection = indexCollection(index)
    const scoped = this.partner !== undefined && partnerColumn(collection) !== undefined
    const text = indexStatements(index, scoped).due
    const found = await this.run(text, [key, upTo, limit, ...(scoped ? [this.partner] : [])])
    return found.map((row) => recordOf(collection, row) as IndexRow<I>)
  }

  /** Sends a write in turn; `refused` says why when it wrote no row (a guarded upsert). */
  private write(text: string, params: unknown[], refused?: () => void): void {
    if (params.some((p) => typeof p === 'string' && p.includes('\0')))
      throw new Error('a row cannot hold a NUL character')
    const sent = this.inTurn(async () => {
      if (this.failure !== undefined) return
      const { rowCount } = await this.client.query(text, params)
      if (rowCount === 0) refused?.()
    }).catch((error: unknown) => {
      this.failure ??= error
    })
    this.pending.push(sent)
  }

  afterCommit(fn: () => void): void {
    this.after.push(fn)
  }

  /** Awaits every write; the first that failed fails the transaction. */
  async written(): Promise<void> {
    await Promise.all(this.pending)
    this.pending = []
    if (this.failure !== undefined) throw this.failure
  }

  close(): void {
    this.open = false
  }
}

/** Empties every table a replace covers and writes `collections` into them. */
async function writeAll(client: pg.ClientBase, collections: CollectionsData): Promise<void> {
  const replaced = collectionNames.filter((name) => !keptOnReplace.includes(name))
  await client.query(`TRUNCATE ${replaced.join(', ')}`)
  for (const name of replaced) {
    const rows = Object.values(collections[name] ?? {}) as Row[]
    // PostgreSQL takes at most 65,535 parameters a statement.
    const perStatement = Math.max(1, Math.floor(60_000 / tables[name].columns.length))
    for (let at = 0; at < rows.length; at += perStatement) {
      const chunk = rows.slice(at, at + perStatement)
      await client.query(
        insertMany(name, chunk.length, false),
        chunk.flatMap((row) => paramsOf(name, row)),
      )
    }
  }
}

/** On a new database (no seed stored yet): the seed's rows, and the seed itself for resets. */
async function seedOnce(
  client: pg.ClientBase,
  schema: string,
  seed: () => CollectionsData,
): Promise<void> {
  await client.query('BEGIN')
  try {
    await lockSchema(client, schema)
    const stored = await client.query("SELECT 1 FROM sandbox_settings WHERE name = 'seed'")
    if (stored.rows.length === 0) {
      const data = seed()
      await writeAll(client, data)
      await client.query("INSERT INTO sandbox_settings (name, value) VALUES ('seed', $1)", [
        JSON.stringify(data),
      ])
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
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
  return { url: url.toString(), schema, pool }
}
