import { closeSync, existsSync, fsyncSync, openSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { type IndexDef, IndexMap } from './index-map.js'
import { Journal, type JournalEntry, type JournalOp } from './journal.js'
import {
  type CollectionName,
  type Collections,
  type CollectionsData,
  collectionNames,
  emptyCollections,
} from './records.js'
import {
  DataFileError,
  openSnapshotFile,
  SCHEMA_VERSION,
  SNAPSHOT_FORMAT,
  type SnapshotDoc,
} from './snapshot-file.js'
import { captureSnapshot, writeSnapshot } from './snapshot-writer.js'
import { storageError } from './storage-error.js'
import { StorageHealth, type StorageProblem } from './storage-health.js'

/**
 * The sandbox's state: collections of rows by id, held in memory, with secondary indexes.
 * With a data file every acknowledged write is journaled before the call returns (see
 * journal.ts), and the journal is folded into the lowdb snapshot once it outgrows it, so the
 * cost of a write does not grow with the size of the data.
 */

type Row = { id: string }

export type { IndexDef } from './index-map.js'

export interface Writer {
  put<K extends CollectionName>(collection: K, row: Collections[K]): void
  remove(collection: CollectionName, id: string): void
}

export interface StoreOptions {
  /** Path of the JSON data file; without it the store lives in memory only. */
  file?: string
  /** Data for a new store (no data file yet, or memory) and for `reset()`. */
  seed: () => CollectionsData
  /** fsync each journal write: survives power loss, not only a process crash. Slower. */
  fsync?: boolean
  /** Compact once the journal is larger than this many bytes and larger than the snapshot. */
  compactAfterBytes?: number
  now?: () => string
  onWarning?: (message: string) => void
  /**
   * Called with each collection of the data file as soon as it is read, before the rest of
   * the file (partners come before users): work that needs only those rows can start early.
   */
  onCollectionRead?: (name: string, rows: Record<string, unknown>) => void
  /**
   * Collections that live in memory only (inbox, request journal, sinks): never
   * journaled or snapshotted, emptied by a reset or restore like the rest.
   */
  ephemeral?: readonly CollectionName[]
  /** Ephemeral collections a reset or restore leaves as they are (the request journal). */
  keepOnReplace?: readonly CollectionName[]
  /** Durable collections a replace adds its rows to rather than replacing (records.ts). */
  mergeOnReplace?: readonly CollectionName[]
}

/** A transaction under way (see begin): its journal ops and how to undo each write. */
export interface OpenTx {
  ops: JournalOp[]
  undo: { collection: CollectionName; id: string; before: Row | undefined }[]
  /** A snapshot was being written when it began: it may hold the transaction's rows. */
  duringCompaction: boolean
}

export class Store {
  private data: CollectionsData = emptyCollections()
  /** The number of the last journal entry: durable commits only, with no gaps. */
  private seq = 0
  private journal?: Journal
  private snapshotFile?: ReturnType<typeof openSnapshotFile>
  private snapshotBytes = 0
  private compacting?: Promise<void>
  private compactionQueued = false
  private readonly indexes = new Map<string, IndexMap>()
  /** The indexes of each collection, so a write visits only its own. */
  private readonly indexesOf = new Map<string, IndexMap[]>()
  /** Indexes defined but not filled yet (see defineIndex). */
  private unfilled: IndexMap[] = []
  /** Collections with an index in `unfilled`. */
  private readonly unfilledOf = new Set<string>()
  private readonly options: StoreOptions
  private readonly replaceListeners: (() => void)[] = []
  private readonly ephemeral: ReadonlySet<string>
  private readonly kept: ReadonlySet<string>
  private readonly merged: ReadonlySet<string>
  /** The transaction under way, if any (one at a time: the seam serializes them). */
  private openTx?: OpenTx
  /** Resolves when the transaction under way ends (a compaction waits for it). */
  private txEnded?: Promise<void>
  private endTx?: () => void
  /**
   * Rows a rollback put back while a snapshot was being written, not journaled yet because the
   * disk refused them: the next entry written starts with them (see rollbackTx).
   */
  private owed: JournalOp[] = []
  /** Whether the data file takes writes (see storage-health.ts). */
  private storage?: StorageHealth
  /** After a failed compaction, the journal size the next attempt waits for. */
  private compactRetryBytes = 0

  private constructor(options: StoreOptions) {
    this.options = options
    this.ephemeral = new Set(options.ephemeral ?? [])
    this.kept = new Set((options.keepOnReplace ?? []).filter((name) => this.ephemeral.has(name)))
    this.merged = new Set(options.mergeOnReplace ?? [])
  }

  static async open(options: StoreOptions): Promise<Store> {
    const store = new Store(options)
    await store.load()
    return store
  }

  private async load() {
    const { file } = this.options
    if (!file) {
      this.data = this.options.seed()
      return
    }
    try {
      await this.loadFile(file)
    } catch (error) {
      if (error instanceof DataFileError) throw error
      // ENOENT (no such folder), EISDIR, EACCES…: say which file and why, not a stack.
      throw new DataFileError(`cannot use data file ${file}: ${(error as Error).message}`)
    }
  }

  private async loadFile(file: string) {
    this.storage = new StorageHealth(file, this.options.onWarning)
    this.snapshotFile = openSnapshotFile(file)
    const snapshot = await this.snapshotFile.read(this.options.onCollectionRead)
    const replay = Journal.replay(`${file}.journal`)
    if (replay.droppedTornLine) {
      this.options.onWarning?.(
        `dropped a torn journal line (a write cut off by a crash): ${replay.droppedTornLine}`,
      )
    }
    this.data = snapshot ? snapshot.collections : this.options.seed()
    this.snapshotBytes = snapshot && existsSync(file) ? statSync(file).size : 0
    this.seq = snapshot?.seq ?? 0
    for (const entry of replay.entries) {
      if (entry.s <= this.seq) continue
      this.apply(entry.o)
      this.seq = entry.s
    }
    this.journal = new Journal(`${file}.journal`)
    // A new file, or one with a journal to fold in, gets a fresh snapshot at once. Without a
    // snapshot the seed is written nowhere else, so a disk that cannot take it refuses the
    // start; with one, the journal holds every write and the sandbox starts on a full disk.
    if (!snapshot) await this.compact()
    else if (replay.entries.length > 0) await this.compact().catch(logged)
  }

  /**
   * Adds an index. It is filled on the first use of its collection's indexes, together with
   * that collection's other indexes, in one pass over the rows (at 100k users, one walk
   * instead of one per index). Other collections wait for their own first use: a restart
   * answers its first request (a partner's key looked up) without first indexing every user.
   */
  defineIndex<K extends CollectionName>(name: string, def: IndexDef<K>): void {
    const index = new IndexMap(def as unknown as IndexDef<CollectionName>, (id) =>
      this.get(def.collection, id),
    )
    this.indexes.set(name, index)
    const siblings = this.indexesOf.get(def.collection)
    if (siblings) siblings.push(index)
    else this.indexesOf.set(def.collection, [index])
    this.unfilled.push(index)
    this.unfilledOf.add(def.collection)
  }

  get<K extends CollectionName>(collection: K, id: string): Collections[K] | undefined {
    // Own rows only: an id like `__proto__` or `constructor` from a URL is not a row.
    const rows = this.data[collection]
    return Object.hasOwn(rows, id) ? rows[id] : undefined
  }

  all<K extends CollectionName>(collection: K): Collections[K][] {
    return Object.values(this.data[collection])
  }

  /** Rows whose index key equals `key`. */
  lookup<K extends CollectionName>(collection: K, index: string, key: string): Collections[K][] {
    const rows = this.data[collection]
    const out: Collections[K][] = []
    for (const id of this.indexEntry(collection, index).walk(key))
      out.push(rows[id] as Collections[K])
    return out
  }

  /** The one row whose (unique) index key equals `key`, without building an array. */
  lookupOne<K extends CollectionName>(
    collection: K,
    index: string,
    key: string,
  ): Collections[K] | undefined {
    const id = this.indexEntry(collection, index).first(key)
    return id === undefined ? undefined : (this.data[collection][id] as Collections[K])
  }

  /**
   * Rows whose index key equals `key`, one at a time, oldest first (or newest first with
   * `reverse`), from just after the row `after` when given (nothing when that row is not under
   * `key`: check with `has`): a page or a prune reads only the rows it needs, not the whole
   * key. Rows may be written while a scan is under way; removed ones are skipped.
   */
  *scan<K extends CollectionName>(
    collection: K,
    index: string,
    key: string,
    options: { reverse?: boolean; after?: string } = {},
  ): Generator<Collections[K]> {
    const ids = this.indexEntry(collection, index).walk(key, options.reverse, options.after)
    const rows = this.data[collection]
    for (const id of ids) {
      const row = rows[id]
      if (row) yield row as Collections[K]
    }
  }

  /** Whether the row `id` is under `key` (a page cursor that names a row of this list). */
  has(collection: CollectionName, index: string, key: string, id: string): boolean {
    return this.indexEntry(collection, index).has(key, id)
  }

  /** The keys an index holds (time buckets, partners), in the order they first appeared. */
  indexKeys(collection: CollectionName, index: string): string[] {
    return [...this.indexEntry(collection, index).keys()]
  }

  count<K extends CollectionName>(collection: K, index: string, key: string): number {
    return this.indexEntry(collection, index).size(key)
  }

  private indexEntry(collection: CollectionName, index: string): IndexMap {
    if (this.unfilledOf.has(collection)) this.fillCollection(collection)
    const entry = this.indexes.get(index)
    if (!entry || entry.def.collection !== collection)
      throw new Error(`no index ${index} on ${collection}`)
    return entry
  }

  put<K extends CollectionName>(collection: K, row: Collections[K]): void {
    this.commit([['put', collection, row]])
  }

  remove(collection: CollectionName, id: string): void {
    this.commit([['del', collection, id]])
  }

  /**
   * Rows of ephemeral collections at once, outside any transaction, not journaled
   * (State.putEphemerals); none when one is durable.
   */
  putEphemerals(puts: readonly { collection: CollectionName; row: Row }[]): void {
    for (const { collection } of puts)
      if (!this.ephemeral.has(collection)) throw new Error(`${collection} is not ephemeral`)
    for (const { collection, row } of puts) this.applyOne(collection, row.id, row)
  }

  /** Several writes as one journal entry: after a crash either all of them are there or none. */
  batch(fn: (writer: Writer) => void): void {
    const ops: JournalOp[] = []
    fn({
      put: (collection, row) => ops.push(['put', collection, row]),
      remove: (collection, id) => ops.push(['del', collection, id]),
    })
    if (ops.length > 0) this.commit(ops)
  }

  /** Replaces every collection (reset to fixtures, restore of a snapshot): see apply. */
  async replaceAll(collections: CollectionsData): Promise<void> {
    this.commit([['replace', collections]])
    for (const listener of this.replaceListeners) listener()
    // The replace is in the journal: a snapshot that cannot be written now only waits.
    await this.compact().catch(logged)
  }

  /** Called after every replaceAll, for in-memory state derived from the rows (schedules). */
  onReplace(listener: () => void): void {
    this.replaceListeners.push(listener)
  }

  export(): SnapshotDoc {
    return this.doc()
  }

  async reset(): Promise<void> {
    await this.replaceAll(this.options.seed())
  }

  private doc(): SnapshotDoc {
    return {
      format: SNAPSHOT_FORMAT,
      schema_version: SCHEMA_VERSION,
      seq: this.seq,
      saved_at: this.options.now?.() ?? new Date().toISOString(),
      collections: this.durableData(),
    }
  }

  /** The collections a snapshot holds: all but the ephemeral ones (left empty). */
  private durableData(): CollectionsData {
    if (this.ephemeral.size === 0) return this.data
    const out = { ...this.data }
    for (const name of this.ephemeral) (out as Record<string, unknown>)[name] = {}
    return out
  }

  private commit(ops: JournalOp[]) {
    // Journal first: if the write fails (disk full), memory is unchanged and the caller sees it.
    this.append(ops)
    this.apply(ops)
    this.maybeCompact()
  }

  /**
   * Journals the durable ops of a commit (ephemeral collections are not written) as the next
   * entry: entries are numbered without gaps, so a reader of the file can tell a complete
   * journal from one cut by a compaction.
   */
  private append(ops: JournalOp[]) {
    const own =
      this.ephemeral.size === 0
        ? ops
        : ops.filter((op) => op[0] === 'replace' || !this.ephemeral.has(op[1]))
    const durable = this.owed.length === 0 ? own : [...this.owed, ...own]
    if (durable.length === 0) return
    const entry: JournalEntry = { s: this.seq + 1, o: durable }
    if (this.journal) {
      try {
        this.journal.append(entry, this.options.fsync)
      } catch (error) {
        const failure = storageError(error, this.journal.path)
        this.storage?.writeFailed(failure, Buffer.byteLength(JSON.stringify(entry)) + 1)
        throw failure
      }
      this.storage?.wrote()
    }
    this.owed = []
    this.seq = entry.s
  }

  /**
   * What keeps the data file from taking writes or compacting now, asked of the disk again
   * first when writes were refused; undefined without a data file.
   */
  storageProblem(): StorageProblem | undefined {
    const journal = this.journal
    if (!journal || !this.storage) return undefined
    return this.storage.problem((bytes) => journal.probe(bytes, this.options.fsync))
  }

  /**
   * Starts a transaction: its writes apply to memory at once (its own reads see them, with
   * every index); `commitTx` journals them as one entry, `rollbackTx` puts every row back. One at a time: the caller (state/memory-state.ts) serializes them.
   */
  begin(): OpenTx {
    if (this.openTx) throw new Error('a transaction is already under way')
    const tx: OpenTx = { ops: [], undo: [], duringCompaction: this.compacting !== undefined }
    this.openTx = tx
    return tx
  }

  /** Whether `tx` is still under way (neither committed nor rolled back). */
  isOpen(tx: OpenTx): boolean {
    return this.openTx === tx
  }

  /** A write of the transaction under way. */
  txWrite(tx: OpenTx, op: ['put', CollectionName, Row] | ['del', CollectionName, string]) {
    const collection = op[0] === 'put' ? op[1] : op[1]
    const id = op[0] === 'put' ? op[2].id : op[2]
    const rows = this.data[collection] as Record<string, Row>
    const before = Object.hasOwn(rows, id) ? rows[id] : undefined
    tx.undo.push({ collection, id, before })
    tx.ops.push(op as JournalOp)
    this.applyRow(rows, collection, id, before, op[0] === 'put' ? op[2] : undefined)
  }

  /** Journals the transaction as one entry (all of it survives a crash, or none). */
  commitTx(tx: OpenTx): void {
    if (tx.ops.length === 0) {
      this.closeTx()
      return
    }
    try {
      this.append(tx.ops)
    } catch (error) {
      // Not on disk (disk full): not acknowledged either. The store stays usable: the
      // transaction ends here, whatever the disk says.
      this.rollbackTx(tx)
      throw error
    }
    this.closeTx()
    this.maybeCompact()
  }

  /** Puts back every row the transaction wrote, newest write first. Never throws. */
  rollbackTx(tx: OpenTx): void {
    if (tx.undo.length === 0) {
      this.closeTx()
      return
    }
    const restore: JournalOp[] = []
    for (let i = tx.undo.length - 1; i >= 0; i--) {
      const { collection, id, before } = tx.undo[i] as OpenTx['undo'][number]
      this.applyOne(collection, id, before)
      restore.push(before ? ['put', collection, before] : ['del', collection, id])
    }
    this.closeTx()
    // A snapshot being written may have read a row of the transaction: the journal after
    // its seq puts the old rows back, so a restart never brings an undone write back.
    if (restore.length === 0 || !this.journal) return
    try {
      this.append(restore)
    } catch {
      // The disk refused them too. Only a snapshot written meanwhile can hold the undone
      // rows: they are owed to the journal, ahead of the next entry, and that snapshot is
      // not put in place before they are written (compact). Otherwise nothing on disk has
      // them, and there is nothing to put back.
      if (tx.duringCompaction) this.owed.push(...restore)
    }
  }

  private closeTx() {
    this.openTx = undefined
    const end = this.endTx
    this.endTx = undefined
    this.txEnded = undefined
    end?.()
  }

  /** Resolves when the transaction under way ends: made only when someone waits for it. */
  private transactionEnded(): Promise<void> {
    this.txEnded ??= new Promise((resolve) => {
      this.endTx = resolve
    })
    return this.txEnded
  }

  private apply(ops: JournalOp[]) {
    for (const op of ops) {
      if (op[0] === 'replace') {
        const next = emptyCollections()
        // Ephemeral collections start empty (an uploaded snapshot cannot bring back an inbox,
        // its codes) but for those kept as they are (the request journal, the sinks); merged
        // ones (the loaded scenarios) keep their rows beside the new.
        for (const name of collectionNames) {
          if (this.kept.has(name)) (next as Record<string, unknown>)[name] = this.data[name]
          else if (!this.ephemeral.has(name))
            Object.assign(
              next[name],
              this.merged.has(name) ? this.data[name] : {},
              op[1][name] ?? {},
            )
        }
        this.data = next
        this.fillIndexes([...this.indexes.values()])
        continue
      }
      const id = op[0] === 'put' ? op[2].id : op[2]
      this.applyOne(op[1] as CollectionName, id, op[0] === 'put' ? op[2] : undefined)
    }
  }

  private applyOne(name: CollectionName, id: string, after: Row | undefined) {
    const collection = this.data[name] as Record<string, Row>
    const before = Object.hasOwn(collection, id) ? collection[id] : undefined
    this.applyRow(collection, name, id, before, after)
  }

  /** `applyOne` with the row before already read (a transaction's write reads it for undo). */
  private applyRow(
    collection: Record<string, Row>,
    name: CollectionName,
    id: string,
    before: Row | undefined,
    after: Row | undefined,
  ) {
    this.reindex(name, id, before, after)
    if (after) collection[id] = after
    else delete collection[id]
  }

  /**
   * Moves a row between index keys. A row whose key did not change keeps its place, so a
   * lookup lists rows in the order they were created (lists rely on it for ties in time).
   */
  private reindex(collection: string, id: string, before: Row | undefined, after: Row | undefined) {
    if (this.unfilledOf.has(collection)) this.fillCollection(collection)
    const indexes = this.indexesOf.get(collection)
    if (!indexes) return
    for (const index of indexes) {
      const from = before ? index.def.key(before as never) : undefined
      const to = after ? index.def.key(after as never) : undefined
      if (from === to && !this.reordered(index, before, after)) continue
      if (from !== undefined) index.delete(from, id, index.def.order?.(before as never))
      if (to !== undefined) index.add(to, id, index.def.order?.(after as never))
    }
  }

  /**
   * Whether a row that keeps its key changes its place in an ordered index: a ring's slot
   * written again with a newer request goes from the oldest place to the newest.
   */
  private reordered(index: IndexMap, before: Row | undefined, after: Row | undefined): boolean {
    const order = index.def.order
    if (!order || !before || !after) return false
    return order(before as never) !== order(after as never)
  }

  /** Fills the indexes of `collection` not filled yet. */
  private fillCollection(collection: string) {
    this.fillIndexes(this.unfilled.filter((index) => index.def.collection === collection))
  }

  /** Empties and refills `indexes`, walking each collection's rows once for all of its indexes. */
  private fillIndexes(indexes: IndexMap[]) {
    this.unfilled = this.unfilled.filter((index) => !indexes.includes(index))
    this.unfilledOf.clear()
    for (const index of this.unfilled) this.unfilledOf.add(index.def.collection)
    const byCollection = new Map<CollectionName, IndexMap[]>()
    for (const index of indexes) {
      index.clear()
      const list = byCollection.get(index.def.collection)
      if (list) list.push(index)
      else byCollection.set(index.def.collection, [index])
    }
    for (const [collection, list] of byCollection) {
      const rows = this.data[collection] as Record<string, Row>
      for (const id in rows) {
        const row = rows[id] as never
        for (const index of list) {
          const key = index.def.key(row)
          if (key !== undefined) index.add(key, id, index.def.order?.(row))
        }
      }
    }
    for (const index of indexes) index.sortAll()
  }

  private maybeCompact() {
    // During a transaction (a write of code not yet on the seam) it waits for the next commit.
    if (!this.journal || this.compacting || this.compactionQueued || this.openTx) return
    const threshold = Math.max(
      this.options.compactAfterBytes ?? 8 * 1024 * 1024,
      this.snapshotBytes,
      this.compactRetryBytes,
    )
    if (this.journal.size > threshold) {
      this.compactionQueued = true
      this.compact()
        .catch(() => {
          // Logged (compact); tried again once the journal grew by a quarter, not on every write.
          this.compactRetryBytes = Math.ceil((this.journal?.size ?? 0) * 1.25)
        })
        .finally(() => {
          this.compactionQueued = false
        })
    }
  }

  /**
   * Folds the journal into a new snapshot (atomic replace); appends continue meanwhile, and the
   * snapshot is written a slice at a time (snapshot-writer.ts), so the event loop never waits
   * for the whole data set to be serialised.
   */
  async compact(): Promise<void> {
    if (!this.journal || !this.snapshotFile) return
    // Waits for a running compaction; a write meanwhile must not start a second one, so
    // `compacting` is only cleared by the compaction that set it.
    // Nor while a transaction is under way: its rows are not the state of any seq yet.
    // (Another's failure is its own: this one tries again.)
    while (this.compacting || this.openTx)
      await (this.compacting?.catch(() => {}) ?? this.transactionEnded())
    const journal = this.journal
    const path = this.snapshotFile.path
    try {
      // Rotation and capture happen in the same tick: the rotated-out file holds exactly the
      // entries up to this.seq, and the capture names exactly the rows that existed then.
      // A rotation the disk refuses leaves both files as they were (journal.ts).
      journal.rotate()
      const { collections, ...head } = this.doc()
      const capture = captureSnapshot(head, collections)
      const fsync = this.options.fsync
      this.compacting = writeSnapshot(path, capture, () => this.readyToReplace())
        .then((bytes) => {
          this.snapshotBytes = bytes
          this.compactRetryBytes = 0
          // With --fsync the snapshot must be on disk before the journal it replaces goes.
          if (fsync) syncToDisk(path)
          journal.finishCompaction()
          this.storage?.compacted()
        })
        .finally(() => {
          this.compacting = undefined
        })
      await this.compacting
    } catch (error) {
      // The old snapshot and the journals still hold every write (snapshot-writer.ts).
      const failure = storageError(error, path)
      this.storage?.compactionFailed(failure)
      throw failure
    }
  }

  /**
   * Before a new snapshot replaces the old one: no transaction whose rows it may hold is still
   * open, and the rows rolled-back ones put back are in the journal (a throw keeps the old
   * snapshot, so a restart never brings an undone write back).
   */
  private async readyToReplace(): Promise<void> {
    while (this.openTx) await this.transactionEnded()
    if (this.owed.length > 0) this.append([])
  }

  async close(): Promise<void> {
    // A disk that cannot take a snapshot now leaves the journal, which holds every write.
    await this.compacting?.catch(() => {})
    if (this.journal && this.journal.size > 0) await this.compact().catch(logged)
    this.journal?.close()
    this.journal = undefined
  }
}

/** For a compaction nobody waits for: compact() logged its failure, storageProblem shows it. */
const logged = () => {}

/** fsync a file and its folder (so its rename is durable too). */
function syncToDisk(path: string): void {
  for (const target of [path, dirname(path)]) {
    const fd = openSync(target, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
}
