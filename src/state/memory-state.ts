import { live, type RuleRow } from '../rules/rule-schema.js'
import type { CollectionName, Collections, CollectionsData } from '../store/records.js'
import type { SnapshotDoc } from '../store/snapshot-file.js'
import type { StorageProblem } from '../store/storage-health.js'
import type { OpenTx, Store } from '../store/store.js'
import { checkScope, checkTenantRow, partnerOf, tenantCollections } from '../store/tenants.js'
import { type IndexName, type IndexRow, indexDefs } from './indexes.js'
import { MemoryTenantReader } from './memory-tenant-reader.js'
import type {
  EphemeralPut,
  RangeOptions,
  ReplaceListener,
  State,
  StateReader,
  StateTx,
  TenantScope,
} from './seam.js'

/** What a write applied at once answers: one promise for all (no allocation per request). */
const settled = Promise.resolve()

/**
 * The memory engine (with an optional data file: journal, snapshot, compaction, retention, as
 * store/store.ts keeps them). Reads answer from memory; `transaction` runs one writer at a time,
 * its writes applied at once and journaled as one entry when it commits, so an acknowledged
 * write survives `kill -9` and two requests never interleave between their awaits.
 *
 * A read outside a transaction is not held back by one under way: between the awaits of a
 * transaction it may see that transaction's writes before they commit. Nothing keeps what it
 * read beyond its request, and a transaction rolls back only when it throws after writing,
 * which domain code avoids by checking first.
 */
export class MemoryState implements State {
  private busy = false
  private readonly waiting: (() => void)[] = []
  /** Counters (increment), by name: one per partner with a rate limit. */
  private readonly counters = new Map<string, { window: number; count: number }>()
  /** What the replace listeners answered for the replace under way. */
  private readonly reloads: Promise<void>[] = []

  constructor(readonly store: Store) {}

  get<K extends CollectionName>(collection: K, id: string): Promise<Collections[K] | undefined> {
    return Promise.resolve(this.store.get(collection, id))
  }

  lookup<I extends IndexName>(index: I, key: string): Promise<IndexRow<I>[]> {
    return Promise.resolve(this.store.lookup(indexDefs[index].collection, index, key) as never)
  }

  lookupOne<I extends IndexName>(index: I, key: string): Promise<IndexRow<I> | undefined> {
    return Promise.resolve(this.store.lookupOne(indexDefs[index].collection, index, key) as never)
  }

  range<I extends IndexName>(
    index: I,
    key: string,
    options: RangeOptions = {},
  ): Promise<IndexRow<I>[]> {
    const limit = options.limit ?? Number.POSITIVE_INFINITY
    const out: IndexRow<I>[] = []
    if (limit > 0) {
      for (const row of this.store.scan(indexDefs[index].collection, index, key, options)) {
        out.push(row as IndexRow<I>)
        if (out.length >= limit) break
      }
    }
    return Promise.resolve(out)
  }

  count(index: IndexName, key: string): Promise<number> {
    return Promise.resolve(this.store.count(indexDefs[index].collection, index, key))
  }

  has(index: IndexName, key: string, id: string): Promise<boolean> {
    return Promise.resolve(this.store.has(indexDefs[index].collection, index, key, id))
  }

  keys(index: IndexName): Promise<string[]> {
    return Promise.resolve(this.store.indexKeys(indexDefs[index].collection, index))
  }

  all<K extends CollectionName>(collection: K): Promise<Collections[K][]> {
    return Promise.resolve(this.store.all(collection))
  }

  tenant(partnerId: string): StateReader {
    return new MemoryTenantReader(this.store, partnerId)
  }

  /** The lock taken inline, not through `locked`: one async call per transaction, not two. */
  async transaction<T>(fn: (tx: StateTx) => Promise<T>, scope?: TenantScope): Promise<T> {
    const queued = this.lock()
    if (queued) await queued
    try {
      const open = this.store.begin()
      const tx = scope
        ? new MemoryTx(
            new MemoryTenantReader(this.store, scope.partner),
            this.store,
            open,
            scope.partner,
          )
        : new MemoryTx(this, this.store, open)
      try {
        const result = await fn(tx)
        this.store.commitTx(open)
        tx.committed()
        return result
      } catch (error) {
        // A commit the disk refused has rolled back already (a StorageError: 507).
        if (this.store.isOpen(open)) this.store.rollbackTx(open)
        throw error
      }
    } finally {
      this.unlock()
    }
  }

  putEphemerals(puts: readonly EphemeralPut[]): Promise<void> {
    try {
      this.store.putEphemerals(puts)
    } catch (error) {
      return Promise.reject(error)
    }
    return settled
  }

  async lookupMany<I extends IndexName>(index: I, keys: readonly string[]) {
    return (await Promise.all(keys.map((key) => this.lookup(index, key)))).flat()
  }

  useRule(row: RuleRow): Promise<boolean> {
    return this.transaction(async (tx) => {
      const current = await tx.get('rules', row.id)
      if (current && !live(current)) return false
      tx.put('rules', current ? { ...current, used: current.used + 1 } : { ...row, used: 1 })
      return true
    })
  }

  increment(name: string, window: number): number {
    const counter = this.counters.get(name)
    if (counter && counter.window === window) return ++counter.count
    this.counters.set(name, { window, count: 1 })
    return 1
  }

  /** Runs `fn` once no other transaction is under way; others wait, in arrival order. */
  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    const queued = this.lock()
    if (queued) await queued
    try {
      return await fn()
    } finally {
      this.unlock()
    }
  }

  /** Takes the lock at once (undefined), or answers when it passes to this caller. */
  private lock(): Promise<void> | undefined {
    if (!this.busy) {
      this.busy = true
      return undefined
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve))
  }

  private unlock(): void {
    const next = this.waiting.shift()
    // The lock passes straight to the next one (still busy).
    if (next) next()
    else this.busy = false
  }

  storageProblem(): StorageProblem | undefined {
    return this.store.storageProblem()
  }

  /** Called after each whole-state replace (reset, restore). */
  onReplace(listener: ReplaceListener): void {
    this.store.onReplace(() => {
      const done = listener()
      if (done instanceof Promise) this.reloads.push(done)
    })
  }

  async replaceAll(collections: CollectionsData): Promise<void> {
    await this.exclusive(() => this.store.replaceAll(collections))
    await this.reloaded()
  }

  async reset(): Promise<void> {
    await this.exclusive(() => this.store.reset())
    await this.reloaded()
  }

  /**
   * The replace listeners' work, awaited once the replace let the writers go: a listener may
   * write (the clock's row), and its transaction waits for the replace to finish.
   */
  private async reloaded(): Promise<void> {
    await Promise.allSettled(this.reloads.splice(0))
  }

  export(): Promise<SnapshotDoc> {
    return Promise.resolve(this.store.export())
  }

  close(): Promise<void> {
    return this.exclusive(() => this.store.close())
  }

  /** Runs `fn` with no transaction under way and none starting until it is done. */
  private exclusive(fn: () => Promise<void>): Promise<void> {
    return this.locked(fn)
  }
}

/** A transaction's view: the engine's reads (which see its own writes) and its writes. */
class MemoryTx implements StateTx {
  /** Made by the first afterCommit: most transactions have none. */
  private after: (() => void)[] | undefined
  private open = true

  constructor(
    private readonly reader: StateReader,
    private readonly store: Store,
    private readonly tx: OpenTx,
    /** The partner of a scoped transaction (TenantScope). */
    private readonly partner?: string,
  ) {}

  committed(): void {
    this.open = false
    if (this.after) for (const fn of this.after) fn()
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

  put<K extends CollectionName>(collection: K, row: Collections[K]): void {
    if (!this.open) throw new Error('write after the transaction ended')
    // As PostgreSQL keys it (store/tenants.ts): a tenant row keeps its partner.
    if (tenantCollections.has(collection)) {
      if (this.partner !== undefined) checkScope(collection, row, this.partner)
      checkTenantRow(collection, row, this.store.get(collection, row.id))
    }
    this.store.txWrite(this.tx, ['put', collection, row])
  }

  remove(collection: CollectionName, id: string): void {
    if (!this.open) throw new Error('write after the transaction ended')
    // Scoped: another partner's row is not this transaction's to remove (nor to see).
    if (this.partner !== undefined && tenantCollections.has(collection)) {
      const row = this.store.get(collection, id)
      if (row && partnerOf(collection, row) !== this.partner) return
    }
    this.store.txWrite(this.tx, ['del', collection, id])
  }

  /** One process, writers serialized: the due rows themselves are this transaction's. */
  takeDue<I extends IndexName>(
    index: I,
    key: string,
    upTo: string,
    limit: number,
  ): Promise<IndexRow<I>[]> {
    const def = indexDefs[index]
    const order = ('order' in def ? def.order : undefined) as ((row: never) => string) | undefined
    if (!order) return Promise.reject(new Error(`takeDue needs an ordered index, not ${index}`))
    const out: IndexRow<I>[] = []
    if (limit <= 0) return Promise.resolve(out)
    const scoped = this.partner !== undefined && tenantCollections.has(def.collection)
    for (const row of this.store.scan(def.collection, index, key)) {
      if (order(row as never) > upTo) break
      if (scoped && partnerOf(def.collection, row) !== this.partner) continue
      out.push(row as IndexRow<I>)
      if (out.length >= limit) break
    }
    return Promise.resolve(out)
  }

  afterCommit(fn: () => void): void {
    if (this.after) this.after.push(fn)
    else this.after = [fn]
  }
}
