import type { CollectionName, Collections } from '../store/records.js'
import type { Store } from '../store/store.js'
import { partnerOf, tenantCollections } from '../store/tenants.js'
import { type IndexName, type IndexRow, indexDefs } from './indexes.js'
import type { RangeOptions, StateReader } from './seam.js'

/**
 * A partner's reads on the memory engine (State.tenant, a scoped transaction's; TenantScope):
 * what the store answers, without the rows of a tenant collection that another partner owns,
 * worked out at once, so a scoped read costs no more awaits than an unscoped one. PostgreSQL
 * says the partner in its statements instead.
 */
export class MemoryTenantReader implements StateReader {
  constructor(
    private readonly store: Store,
    readonly partner: string,
  ) {}

  private mine(collection: CollectionName, row: object | undefined): boolean {
    return (
      row !== undefined &&
      (!tenantCollections.has(collection) ||
        partnerOf(collection, row as Record<string, unknown>) === this.partner)
    )
  }

  get<K extends CollectionName>(collection: K, id: string): Promise<Collections[K] | undefined> {
    const row = this.store.get(collection, id)
    return Promise.resolve(this.mine(collection, row) ? row : undefined)
  }

  lookup<I extends IndexName>(index: I, key: string): Promise<IndexRow<I>[]> {
    return Promise.resolve(this.rowsUnder(index, key))
  }

  lookupOne<I extends IndexName>(index: I, key: string): Promise<IndexRow<I> | undefined> {
    const collection = indexDefs[index].collection
    const first = this.store.lookupOne(collection, index, key)
    if (first === undefined || this.mine(collection, first)) return Promise.resolve(first as never)
    return Promise.resolve(this.rowsUnder(index, key)[0])
  }

  range<I extends IndexName>(
    index: I,
    key: string,
    options: RangeOptions = {},
  ): Promise<IndexRow<I>[]> {
    const collection = indexDefs[index].collection
    const limit = options.limit ?? Number.POSITIVE_INFINITY
    const out: IndexRow<I>[] = []
    if (limit > 0) {
      // Read as far as the page needs: rows of another partner are passed over.
      for (const row of this.store.scan(collection, index, key, options)) {
        if (!this.mine(collection, row)) continue
        out.push(row as IndexRow<I>)
        if (out.length >= limit) break
      }
    }
    return Promise.resolve(out)
  }

  count(index: IndexName, key: string): Promise<number> {
    const def = indexDefs[index]
    // A counted index's count is its key's, scoped or not (TenantScope).
    if (!tenantCollections.has(def.collection) || ('counted' in def && def.counted))
      return Promise.resolve(this.store.count(def.collection, index, key))
    return Promise.resolve(this.rowsUnder(index, key).length)
  }

  has(index: IndexName, key: string, id: string): Promise<boolean> {
    const collection = indexDefs[index].collection
    return Promise.resolve(
      this.store.has(collection, index, key, id) &&
        this.mine(collection, this.store.get(collection, id)),
    )
  }

  keys(index: IndexName): Promise<string[]> {
    return Promise.resolve(this.store.indexKeys(indexDefs[index].collection, index))
  }

  all<K extends CollectionName>(collection: K): Promise<Collections[K][]> {
    return Promise.resolve(this.only(collection, this.store.all(collection)))
  }

  private rowsUnder<I extends IndexName>(index: I, key: string): IndexRow<I>[] {
    const collection = indexDefs[index].collection
    return this.only(collection, this.store.lookup(collection, index, key) as IndexRow<I>[])
  }

  /** `rows` as they are when every one is this partner's (no copy), else those that are. */
  private only<T extends object>(collection: CollectionName, rows: T[]): T[] {
    if (!tenantCollections.has(collection)) return rows
    for (const row of rows)
      if (!this.mine(collection, row)) return rows.filter((r) => this.mine(collection, r))
    return rows
  }
}
