import type pg from 'pg'
import type { RuleRow } from '../../rules/rule-schema.js'
import {
  type CollectionName,
  type CollectionsData,
  collectionNames,
  ephemeralCollections,
  keptOnReplace,
  mergedOnReplace,
} from '../../store/records.js'
import { SCHEMA_VERSION, SNAPSHOT_FORMAT, type SnapshotDoc } from '../../store/snapshot-file.js'
import { outageOf } from '../database-error.js'
import { parseDatabaseUrl } from '../database-url.js'
import type { IndexName, IndexRow } from '../indexes.js'
import type {
  EphemeralPut,
  ReplaceListener,
  State,
  StateReader,
  StateTx,
  TenantScope,
} from '../seam.js'
import { Counters } from './counters.js'
import { tableOf } from './index-sql.js'
import { lockSchema, migrate } from './migrate.js'
import { PgReader } from './pg-reader.js'
import { PgTx } from './pg-tx.js'
import { createPool, prepared, transact, within } from './pool.js'
import { ReadBatches } from './read-batches.js'
import { turns, withRetries } from './retries.js'
import { paramsOf, type Row, recordOf } from './rows.js'
import {
  indexStatements,
  insertMany,
  tableStatements,
  USE_RULE,
  upsertGroups,
} from './statements.js'
import { tables } from './tables.js'

export interface PostgresStateOptions {
  /** `postgres://user:password@host:port/database`, with optional `?schema=` and `?pool=`. */
  url: string
  /** The rows of a new database, and of every reset. */
  seed: () => CollectionsData
  /** The sandbox's time, for an export's `saved_at`. */
  now?: () => string
  /** Told of what goes wrong away from any request (a pooled connection lost while idle). */
  onWarning?: (message: string) => void
}

/**
 * The PostgreSQL engine of the state seam, read through: every read is a query, in the
 * request's transaction when it writes; every transaction a SERIALIZABLE one, run again when it
 * loses a conflict (retries.ts), as the memory engine's queue would have run it after the other.
 * A replica keeps no copy of any row, so any number of them on one database answer as one
 * sandbox, and none needs to hear of another's commits. A query that cannot reach the database
 * fails with DatabaseUnavailable (a 503); the pool connects again when it is back.
 */
export class PostgresState extends PgReader implements State {
  private readonly replaceListeners: ReplaceListener[] = []
  private readonly counters = new Counters(async (name, window, n) => {
    const [counted] = await this.run(INCREMENT, [name, window, n])
    return Number(counted?.count ?? 0)
  })

  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly options: PostgresStateOptions,
  ) {
    const send = async <R>(config: pg.QueryConfig | pg.QueryArrayConfig) => {
      try {
        return (await pool.query(config)).rows as R[]
      } catch (error) {
        throw outageOf(error, options.url)
      }
    }
    const batches = new ReadBatches((text, params) =>
      send<unknown[]>({ ...prepared(text, params), rowMode: 'array' }),
    )
    super((text, params = []) => send<Row>(prepared(text, params)), undefined, batches)
  }

  /** Connects, migrates, and seeds a new database (once, under the schema's lock). */
  static async open(options: PostgresStateOptions): Promise<PostgresState> {
    const { url, schema, pool: size } = parseDatabaseUrl(options.url)
    const pool = createPool(url, schema, size, (error) =>
      options.onWarning?.(`a pooled PostgreSQL connection was lost: ${error.message}`),
    )
    try {
      const client = await pool.connect()
      try {
        await migrate(client, schema)
        await within(client, 'BEGIN', () => seedOnce(client, schema, options.seed))
      } finally {
        client.release()
      }
      return new PostgresState(pool, schema, options)
    } catch (error) {
      await pool.end().catch(() => {})
      throw error
    }
  }

  tenant(partnerId: string): StateReader {
    return new PgReader(this.send, partnerId, this.batches)
  }

  async transaction<T>(fn: (tx: StateTx) => Promise<T>, scope?: TenantScope): Promise<T> {
    const turn = turns(this.schema, scope?.partner)
    const { tx, result } = await withRetries(
      (alone) =>
        transact(this.pool, this.options.url, alone ? turn.alone : turn.begin, async (c) => {
          const tx = new PgTx(c, scope?.partner)
          try {
            const result = await fn(tx)
            await tx.written()
            return { tx, result }
          } finally {
            tx.close()
          }
        }),
      turn.key,
    )
    for (const run of tx.after) run()
    return result
  }

  /** One statement (the last put of a row wins), outside any transaction. */
  async putEphemerals(puts: readonly EphemeralPut[]): Promise<void> {
    const byCollection = new Map<CollectionName, Map<string, Row>>()
    for (const { collection, row } of puts) {
      if (!ephemeralCollections.includes(collection))
        throw new Error(`${collection} is not ephemeral`)
      const rows = byCollection.get(collection) ?? new Map<string, Row>()
      byCollection.set(collection, rows)
      const id = (row as unknown as Row).id as string
      rows.delete(id)
      rows.set(id, row as unknown as Row)
    }
    const groups = [...byCollection]
    await this.run(
      upsertGroups(groups.map(([collection, rows]) => [collection, rows.size] as const)),
      groups.flatMap(([collection, rows]) =>
        [...rows.values()].flatMap((row) => paramsOf(collection, row)),
      ),
    )
  }

  /** Sent with the other reads started at once (read-batches.ts), as their statement's rows. */
  async lookupMany<I extends IndexName>(index: I, keys: readonly string[]) {
    const collection = tableOf(index)
    const found = await (this.batches as ReadBatches).read(
      tables[collection].names,
      indexStatements(index, false).lookupAny,
      [keys.filter((key) => !key.includes('\0'))],
      true,
    )
    return found.map((row) => recordOf(collection, row) as IndexRow<I>)
  }

  async useRule(row: RuleRow): Promise<boolean> {
    const taken = await this.run(USE_RULE, paramsOf('rules', { ...row, used: 1 }))
    return taken.length > 0
  }

  increment(name: string, window: number): Promise<number> {
    return this.counters.increment(name, window)
  }

  onReplace(listener: ReplaceListener): void {
    this.replaceListeners.push(listener)
  }

  async replaceAll(collections: CollectionsData): Promise<void> {
    // Run again when chosen as a deadlock's loser: its TRUNCATE locks table after table.
    const filled = await withRetries(() =>
      transact(this.pool, this.options.url, 'BEGIN', async (client) => {
        await lockSchema(client, this.schema)
        return writeAll(client, collections)
      }),
    )
    // The planner's statistics of a table a restore filled, at once rather than at
    // autovacuum's next round: until then a lookup of a partial index's few rows (the partners
    // on their own clock, the deliveries due) may be planned as a scan of the whole table.
    // The replace is committed whatever comes of it: a failure is only said.
    const analyzed = filled.join(', ')
    if (analyzed)
      await this.run(`ANALYZE ${analyzed}`, []).catch((error: Error) =>
        this.options.onWarning?.(`cannot take the statistics of ${analyzed}: ${error.message}`),
      )
    await Promise.allSettled(this.replaceListeners.map((listener) => listener()))
  }

  async reset(): Promise<void> {
    const [stored] = await this.run("SELECT value FROM sandbox_settings WHERE name = 'seed'", [])
    await this.replaceAll((stored?.value as CollectionsData) ?? this.options.seed())
  }

  async export(): Promise<SnapshotDoc> {
    const begin = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
    const collections = await transact(this.pool, this.options.url, begin, async (client) => {
      const all: Record<string, Record<string, Row>> = {}
      for (const name of collectionNames) {
        all[name] = {}
        if (ephemeralCollections.includes(name)) continue
        for (const row of (await client.query(tableStatements(name, false).all)).rows)
          all[name][row.id as string] = recordOf(name, row)
      }
      return all as unknown as CollectionsData
    })
    const saved_at = this.options.now?.() ?? new Date().toISOString()
    return {
      format: SNAPSHOT_FORMAT,
      schema_version: SCHEMA_VERSION,
      seq: 0,
      saved_at,
      collections,
    }
  }

  private closed: Promise<void> | undefined

  close(): Promise<void> {
    this.closed ??= this.pool.end()
    return this.closed
  }
}

const INCREMENT =
  'INSERT INTO sandbox_counters AS c (name, win, count) VALUES ($1, $2, $3) ' +
  'ON CONFLICT (name) DO UPDATE SET win = EXCLUDED.win, count = CASE WHEN c.win = EXCLUDED.win ' +
  'THEN c.count + EXCLUDED.count ELSE EXCLUDED.count END RETURNING count'

/** Rows written to a table past which its statistics are taken at once (autovacuum's 50). */
const ANALYZE_PAST = 50

/**
 * Empties every table a replace covers (but those it merges into) and writes `collections`
 * into them; answers the tables that got more than ANALYZE_PAST rows.
 */
async function writeAll(client: pg.ClientBase, collections: CollectionsData): Promise<string[]> {
  const replaced = collectionNames.filter((name) => !keptOnReplace.includes(name))
  const emptied = replaced.filter((name) => !mergedOnReplace.includes(name))
  await client.query(`TRUNCATE ${emptied.join(', ')}`)
  const filled: string[] = []
  for (const name of replaced) {
    const rows = Object.values(collections[name] ?? {}) as Row[]
    if (rows.length > ANALYZE_PAST) filled.push(name)
    // PostgreSQL takes at most 65,535 parameters a statement.
    const perStatement = Math.max(1, Math.floor(60_000 / tables[name].columns.length))
    for (let at = 0; at < rows.length; at += perStatement) {
      const chunk = rows.slice(at, at + perStatement)
      const params = chunk.flatMap((row) => paramsOf(name, row))
      await client.query(insertMany(name, chunk.length, mergedOnReplace.includes(name)), params)
    }
  }
  return filled
}

/** On a new database (no seed stored yet): the seed's rows, and the seed itself for resets. */
async function seedOnce(client: pg.ClientBase, schema: string, seed: () => CollectionsData) {
  await lockSchema(client, schema)
  const stored = await client.query("SELECT 1 FROM sandbox_settings WHERE name = 'seed'")
  if (stored.rows.length > 0) return
  const data = seed()
  await writeAll(client, data)
  const text = "INSERT INTO sandbox_settings (name, value) VALUES ('seed', $1)"
  await client.query(text, [JSON.stringify(data)])
}
