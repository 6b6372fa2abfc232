import type { RuleRow } from '../rules/rule-schema.js'
import type { CollectionName, Collections, CollectionsData } from '../store/records.js'
import type { SnapshotDoc } from '../store/snapshot-file.js'
import type { StorageProblem } from '../store/storage-health.js'
import type { IndexName, IndexRow } from './indexes.js'

/**
 * The one state seam: every piece of sandbox state is read and written through it, and every
 * engine (memory with an optional data file, PostgreSQL) implements it. Reads and writes are
 * asynchronous because a database engine needs them to be; all the writes of one request
 * happen in one `transaction`, which commits all of them or none.
 */

/** Where a page of an index starts and how long it is. */
export interface RangeOptions {
  /** Newest (last added, or latest `order`) first. */
  reverse?: boolean
  /** Start just after this row id; nothing when it is not under the key (check with `has`). */
  after?: string
  /** At most this many rows. */
  limit?: number
}

/** One row of an ephemeral collection to put (State.putEphemerals). */
export type EphemeralPut = {
  [K in CollectionName]: { collection: K; row: Collections[K] }
}[CollectionName]

/**
 * A transaction or reader of one partner's (State.tenant, State.transaction): a read of a
 * tenant collection (store/tenants.ts) finds that partner's rows only, as if no other partner's
 * were there, and a write of another partner's row is refused. A counted index's count is its
 * key's whole count (the caps' keys are partners already); `keys` is not scoped.
 */
export interface TenantScope {
  partner: string
}

/** What can be read, in or out of a transaction. */
export interface StateReader {
  get<K extends CollectionName>(collection: K, id: string): Promise<Collections[K] | undefined>
  /** Every row whose key in `index` is `key`, in the index's order. */
  lookup<I extends IndexName>(index: I, key: string): Promise<IndexRow<I>[]>
  /** The first row under `key` (the one row of a unique key). */
  lookupOne<I extends IndexName>(index: I, key: string): Promise<IndexRow<I> | undefined>
  /** A page of the rows under `key`: a list reads its page, not the whole key. */
  range<I extends IndexName>(index: I, key: string, options?: RangeOptions): Promise<IndexRow<I>[]>
  count(index: IndexName, key: string): Promise<number>
  /** Whether row `id` is under `key` (a page cursor that names a row of this list). */
  has(index: IndexName, key: string, id: string): Promise<boolean>
  /** The keys an index holds, in the order they first appeared (time buckets, partners). */
  keys(index: IndexName): Promise<string[]>
  /** Every row of a collection: for small ones (partners, scenarios) and whole-state work. */
  all<K extends CollectionName>(collection: K): Promise<Collections[K][]>
}

/** A transaction: reads see its own writes; its writes become visible together on commit. */
export interface StateTx extends StateReader {
  put<K extends CollectionName>(collection: K, row: Collections[K]): void
  remove(collection: CollectionName, id: string): void
  /**
   * Due work, taken for this transaction: the rows under `key` of an ordered index whose order
   * value is at most `upTo`, in order, at most `limit`, locked until the transaction ends. Rows
   * another transaction holds are skipped, not waited for (PostgreSQL: `FOR UPDATE SKIP
   * LOCKED`), so replicas taking work at once each get their own. The memory engine, one
   * process whose writers are serialized, answers the rows.
   */
  takeDue<I extends IndexName>(
    index: I,
    key: string,
    upTo: string,
    limit: number,
  ): Promise<IndexRow<I>[]>
  /**
   * Runs after the transaction committed (never when it rolled back): how this process
   * hears of its own writes, to wake local work sooner (the dispatcher, a waiting request).
   * Another process's writes are read from the state, never heard.
   */
  afterCommit(fn: () => void): void
}

/** What writes rows inside a transaction: the write half of StateTx. */
export type StateWriter = Pick<StateTx, 'put' | 'remove'>

/** What hears a replace: what it answers, when a promise, is awaited (State.onReplace). */
export type ReplaceListener = (() => void) | (() => Promise<void>)

export interface State extends StateReader {
  /**
   * Runs `fn` as one transaction. Writers never interleave: a second transaction starts once
   * the first has committed or rolled back, so a read-modify-write between awaits is exact.
   * A throw rolls every write of `fn` back and rethrows. With `scope`, a partner's request's
   * transaction: it reads and writes that partner's tenant rows only (TenantScope).
   */
  transaction<T>(fn: (tx: StateTx) => Promise<T>, scope?: TenantScope): Promise<T>
  /** The reads of one partner's requests (TenantScope). */
  tenant(partnerId: string): StateReader
  /**
   * Puts rows of ephemeral collections at once, outside any transaction: one autocommit
   * statement on a database, like a lone INSERT … ON CONFLICT UPDATE (the last put of a row
   * wins). For what is written on every request (its journal entry and capture, rows of a ring
   * whose ids are its slots), which must not wait for the writers' queue. A durable
   * collection is refused.
   */
  putEphemerals(puts: readonly EphemeralPut[]): Promise<void>
  /**
   * Adds one to the counter `name` in the window numbered `window` (a counter moved to another
   * window starts again at 0) and answers its count: one count among every process sharing
   * the state (a partner's rate limit). Not durable, never journaled. The memory engine answers
   * at once, without a promise.
   */
  increment(name: string, window: number): number | Promise<number>
  /**
   * Every row under any of `keys` of an index, in one read (one statement on a database): a
   * request reads its partner's rules and the global ones together.
   */
  lookupMany<I extends IndexName>(index: I, keys: readonly string[]): Promise<IndexRow<I>[]>
  /**
   * Takes one use of a counted rule, atomically, outside any transaction: adds one to its
   * `used` while it has uses left (`used < times`), or writes it with `used: 1` when there is
   * no row yet (a scenario rule's first use by a partner). Answers whether a use was taken:
   * of two requests (or replicas) at once, only one takes a rule's last use. PostgreSQL: one
   * INSERT … ON CONFLICT DO UPDATE … WHERE … RETURNING.
   */
  useRule(row: RuleRow): Promise<boolean>
  /**
   * What keeps this engine's own storage from taking writes now (the data file's disk is full:
   * writes are answered 507), asked of the storage again first; undefined when all is well.
   * Absent on an engine whose storage is a server (PostgreSQL: an outage is a 503 anyway).
   */
  storageProblem?(): StorageProblem | undefined
  /**
   * Hears a whole-state replace (reset, restore) this process made: a hint, good for waking
   * local work sooner; what must be current is read from the state.
   * `replaceAll` and `reset` resolve once the promise a listener answers has settled.
   */
  onReplace(listener: ReplaceListener): void
  /**
   * Replaces every collection (reset to fixtures, restore of a snapshot), in one transaction:
   * but the ephemeral ones it keeps (keptOnReplace), and those it adds its rows to
   * (mergedOnReplace: the loaded scenarios).
   */
  replaceAll(collections: CollectionsData): Promise<void>
  /** Back to the seed data. */
  reset(): Promise<void>
  /** The whole durable state, as the data file holds it. */
  export(): Promise<SnapshotDoc>
  close(): Promise<void>
}
