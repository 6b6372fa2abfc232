import type { CollectionName, Collections } from '../../store/records.js'
import { type IndexName, type IndexRow, indexDefs } from '../indexes.js'
import type { RangeOptions, StateReader } from '../seam.js'
import { tableOf } from './index-sql.js'
import type { ReadBatches } from './read-batches.js'
import { type Row, recordOf } from './rows.js'
import { indexStatements, partnerColumn, tableStatements } from './statements.js'
import { tables } from './tables.js'

export type Query = (text: string, params?: unknown[]) => Promise<Row[]>

/** Whether a parameter holds NUL, which no text column can (so no row has it). */
export const holdsNul = (params: unknown[]) =>
  params.some((p) => typeof p === 'string' && p.includes('\0'))

/**
 * The reads, over any connection: the pool's, or a transaction's. With `partner` (State.tenant,
 * a transaction's scope), a read of one of the partner's tables asks for its rows only.
 */
export class PgReader implements StateReader {
  constructor(
    protected readonly send: Query,
    readonly partner?: string,
    protected readonly batches?: ReadBatches,
  ) {}

  /** The record a statement finds, if any: sent with other reads started at once, outside a transaction. */
  private async first<R>(collection: CollectionName, text: string, params: unknown[]) {
    const found = await this.one(tables[collection].names, text, params, collection)
    return found ? (recordOf(collection, found) as R) : undefined
  }

  /** A statement's one row, batched with the others of this tick outside a transaction. */
  private async one(
    columns: readonly string[],
    text: string,
    params: unknown[],
    of: CollectionName,
  ) {
    if (this.batches === undefined || holdsNul(params)) return (await this.run(text, params, of))[0]
    return (await this.batches.read(columns, text, params))[0]
  }

  /**
   * `of`: the collection read (a transaction keeps what it read of it until it writes it).
   * A text column cannot hold NUL, so no row has an id or key with one (a token sent as %00):
   * nothing is found, as in memory, where PostgreSQL would refuse the parameter.
   */
  protected run(text: string, params: unknown[], _of?: CollectionName): Promise<Row[]> {
    if (holdsNul(params)) return Promise.resolve([])
    return this.send(text, params)
  }

  protected scopes(collection: CollectionName): boolean {
    return this.partner !== undefined && partnerColumn(collection) !== undefined
  }

  protected tail(scoped: boolean): unknown[] {
    return scoped ? [this.partner] : []
  }

  /** The rows of an index's statement, with the key first and the partner last. */
  protected async indexRows<I extends IndexName>(
    index: I,
    statement: Exclude<keyof ReturnType<typeof indexStatements>, 'count' | 'keys' | 'has'>,
    params: unknown[],
  ): Promise<IndexRow<I>[]> {
    const scoped = this.scopes(tableOf(index))
    const text = indexStatements(index, scoped)[statement]
    const of = statement === 'due' ? undefined : tableOf(index)
    const found = await this.run(text, [...params, ...this.tail(scoped)], of)
    return found.map((row) => recordOf(tableOf(index), row) as IndexRow<I>)
  }

  get<K extends CollectionName>(collection: K, id: string) {
    const scoped = this.scopes(collection)
    const text = tableStatements(collection, scoped).get
    return this.first<Collections[K]>(collection, text, [id, ...this.tail(scoped)])
  }

  lookup<I extends IndexName>(index: I, key: string) {
    return this.indexRows(index, 'lookup', [key])
  }

  lookupOne<I extends IndexName>(index: I, key: string) {
    const scoped = this.scopes(tableOf(index))
    const text = indexStatements(index, scoped).lookupOne
    return this.first<IndexRow<I>>(tableOf(index), text, [key, ...this.tail(scoped)])
  }

  async range<I extends IndexName>(index: I, key: string, options: RangeOptions = {}) {
    const limit = options.limit ?? null
    if (limit !== null && limit <= 0) return []
    if (options.after === undefined)
      return this.indexRows(index, options.reverse ? 'reverse' : 'forward', [key, limit])
    const statement = options.reverse ? 'reverseAfter' : 'forwardAfter'
    return this.indexRows(index, statement, [key, options.after, limit])
  }

  async count(index: IndexName, key: string) {
    // A counted index's count is its key's whole count, scoped or not (seam.ts, TenantScope).
    const def = indexDefs[index]
    const scoped = this.scopes(tableOf(index)) && !('counted' in def && def.counted)
    const text = indexStatements(index, scoped).count
    const found = await this.one(['n'], text, [key, ...this.tail(scoped)], tableOf(index))
    return Number(found?.n ?? 0)
  }

  async has(index: IndexName, key: string, id: string) {
    const scoped = this.scopes(tableOf(index))
    const text = indexStatements(index, scoped).has
    return (await this.run(text, [key, id, ...this.tail(scoped)], tableOf(index))).length > 0
  }

  async keys(index: IndexName) {
    return (await this.run(indexStatements(index, false).keys, [])).map((row) => row.k as string)
  }

  async all<K extends CollectionName>(collection: K) {
    const scoped = this.scopes(collection)
    const found = await this.run(
      tableStatements(collection, scoped).all,
      this.tail(scoped),
      collection,
    )
    return found.map((row) => recordOf(collection, row) as Collections[K])
  }
}
