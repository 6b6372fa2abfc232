import { OrderedIds } from './ordered-ids.js'
import type { CollectionName, Collections } from './records.js'

export interface IndexDef<K extends CollectionName> {
  collection: K
  key: (row: Collections[K]) => string | undefined
  /**
   * Keeps each key's rows sorted by this (`created_at`), ties in the order they were added:
   * a list read newest first from the index is then in time order even after a clock moved
   * back, without sorting the whole history on each read.
   */
  order?: (row: Collections[K]) => string
  /**
   * Its count is asked for a whole key (a cap, a total): a partner's reader counts the key's
   * every row, not only its own (State's TenantScope); the keys of these are partners or
   * sandbox-wide already.
   */
  counted?: boolean
}

/**
 * One secondary index: key -> ids of the rows with that key, in the order they were added
 * (lists rely on it for ties in time), or in `order`. Most keys name one row (an e-mail, a
 * user's card), so a lone id is kept as a plain string and becomes an OrderedIds only at the
 * second: at 100k users a structure per key cost more memory than the rows' own strings.
 */
export class IndexMap {
  private readonly map = new Map<string, string | OrderedIds>()

  /**
   * `rowOf` gives the stored row of an id: its order value (when a lone id gets company, or
   * a cursor's place is looked for) and whether it is under a key.
   */
  constructor(
    readonly def: IndexDef<CollectionName>,
    private readonly rowOf: (id: string) => Collections[CollectionName] | undefined,
  ) {}

  /** The order value of a stored row's id ('' without `order`). */
  private orderOf(id: string): string {
    const order = this.def.order
    if (!order) return ''
    const row = this.rowOf(id)
    return row === undefined ? '' : order(row)
  }

  add(key: string, id: string, orderValue?: string): void {
    const ids = this.map.get(key)
    if (ids === undefined) this.map.set(key, id)
    else if (typeof ids === 'string') {
      if (ids === id) return
      const many = new OrderedIds(this.def.order !== undefined)
      many.add(ids, this.def.order ? this.orderOf(ids) : undefined)
      many.add(id, orderValue)
      this.map.set(key, many)
    } else ids.add(id, orderValue)
  }

  /** Takes `id` from `key`; `orderValue` is the one it was added with. */
  delete(key: string, id: string, orderValue?: string): void {
    const ids = this.map.get(key)
    if (ids === undefined) return
    if (typeof ids === 'string') {
      if (ids === id) this.map.delete(key)
      return
    }
    ids.delete(id, orderValue)
    if (ids.size === 1) for (const last of ids.walk()) this.map.set(key, last)
  }

  /**
   * The ids under `key`, oldest first (newest first with `reverse`); with `after`, only those
   * that come after that id in the walk's direction (none when it is not under `key`).
   */
  *walk(key: string, reverse = false, after?: string): Generator<string> {
    const ids = this.map.get(key)
    if (ids === undefined) return
    if (typeof ids !== 'string') {
      yield* ids.walk(reverse, after, after === undefined ? undefined : this.orderOf(after))
      return
    }
    if (after === undefined) yield ids
  }

  /** Read from the row, as the index holds every stored row under its key. */
  has(key: string, id: string): boolean {
    const row = this.rowOf(id)
    return row !== undefined && this.def.key(row) === key
  }

  first(key: string): string | undefined {
    const ids = this.map.get(key)
    return typeof ids === 'object' ? ids.first() : ids
  }

  /** Every key, in the order each first appeared. */
  keys(): IterableIterator<string> {
    return this.map.keys()
  }

  size(key: string): number {
    const ids = this.map.get(key)
    if (ids === undefined) return 0
    return typeof ids === 'string' ? 1 : ids.size
  }

  /** After a bulk fill: each key's ids in `order` (a snapshot may hold rows out of time order). */
  sortAll(): void {
    if (!this.def.order) return
    for (const ids of this.map.values()) if (typeof ids !== 'string') ids.sort()
  }

  /** Empties the index before a fill. */
  clear(): void {
    this.map.clear()
  }
}
