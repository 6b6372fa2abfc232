import type { CollectionName, Collections } from './records.js'

export interface IndexDef<K extends CollectionName> {
  collection: K
  key: (row: Collections[K]) => string | undefined
}

/**
 * One secondary index: key -> ids of the rows with that key, in the order they were added
 * (lists rely on it for ties in time). Most keys name one row (an e-mail, a user's card), so
 * a lone id is kept as a plain string and becomes a Set only at the second: at 100k users a
 * Set per key cost more memory than the rows' own strings.
 */
export class IndexMap {
  private readonly map = new Map<string, string | Set<string>>()

  constructor(readonly def: IndexDef<CollectionName>) {}

  add(key: string, id: string): void {
    const ids = this.map.get(key)
    if (ids === undefined) this.map.set(key, id)
    else if (typeof ids === 'string') {
      if (ids !== id) this.map.set(key, new Set([ids, id]))
    } else ids.add(id)
  }

  delete(key: string, id: string): void {
    const ids = this.map.get(key)
    if (ids === undefined) return
    if (typeof ids === 'string') {
      if (ids === id) this.map.delete(key)
      return
    }
    ids.delete(id)
    if (ids.size === 1) for (const last of ids) this.map.set(key, last)
  }

  /** The ids under `key`, oldest first. */
  ids(key: string): readonly string[] | Set<string> {
    const ids = this.map.get(key)
    if (ids === undefined) return []
    return typeof ids === 'string' ? [ids] : ids
  }

  first(key: string): string | undefined {
    const ids = this.map.get(key)
    if (typeof ids !== 'object') return ids
    for (const id of ids) return id
    return undefined
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

  clear(): void {
    this.map.clear()
  }
}
