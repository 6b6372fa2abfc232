import type { ListenMeta, Sql, TransactionSql } from 'postgres'
import type { CollectionName } from '../../store/records.js'
import type { IndexName } from '../indexes.js'
import type { Change, ReplaceListener } from '../seam.js'

/**
 * The collections whose commits every replica hears in full (onCommit, with the rows as they
 * now stand): what replicas keep a copy of or act on, each in process (webhook endpoints and
 * partners for the fan-out, deliveries for the dispatcher, events for long-poll waits, loaded
 * scenarios, the sandbox clock). Users, cards and money are read when needed, not copied.
 */
export const noticedCollections: ReadonlySet<CollectionName> = new Set<CollectionName>([
  'partners',
  'webhooks',
  'webhook_labs',
  'webhook_deliveries',
  'events',
  'scenarios',
  'clocks',
])

/** Reads the rows of `ids` as they stand (absent: removed since). */
export type RowFetcher = (
  collection: CollectionName,
  ids: string[],
) => Promise<Map<string, Record<string, unknown>>>

/** A notice bigger than this says "everything changed" instead of naming keys (limit 8000). */
const MAX_PAYLOAD = 7000

interface Notice {
  /** The replica that committed. */
  r: string
  /** Versioned index keys whose rows changed: `[index, key]`. */
  k?: [IndexName, string][]
  /** Rows of the noticed collections written: `[collection, id]`. */
  c?: [CollectionName, string][]
  /** Every key may have changed (too many to name), or the whole state was replaced. */
  all?: 1
  replace?: 1
}

/**
 * What the seam's caches are keyed on, kept current across replicas: `version` rises with every
 * commit made here and with every commit another replica announces (a NOTIFY sent inside its
 * transaction, delivered once it committed), and so does the key version of each versioned
 * index key it names. A cache checked against them is dropped on the next request after a
 * change through any replica, as soon as the notice arrives.
 */
export class ChangeNotices {
  version = 0
  private floor = 0
  private readonly keys = new Map<string, number>()
  private readonly commitListeners = new Set<(changes: readonly Change[]) => void>()
  private readonly replaceListeners: ReplaceListener[] = []
  private unlisten: (() => Promise<void>) | undefined
  /** Other replicas' commits, heard in the order they came (each waits for the one before). */
  private remote: Promise<void> = Promise.resolve()

  private constructor(
    private readonly fetchRows: RowFetcher,
    private readonly channel: string,
    /** This replica's name among those sharing the database (notices, lease holders). */
    readonly replica: string,
  ) {}

  static async listen(
    sql: Sql,
    schema: string,
    replica: string,
    fetchRows: RowFetcher,
  ): Promise<ChangeNotices> {
    const notices = new ChangeNotices(fetchRows, `partner_sandbox_${schema}`, replica)
    const meta: ListenMeta = await sql.listen(notices.channel, (payload) => notices.heard(payload))
    notices.unlisten = meta.unlisten
    return notices
  }

  keyVersion(index: IndexName, key: string): number {
    return this.keys.get(`${index}\0${key}`) ?? this.floor
  }

  onCommit(listener: (changes: readonly Change[]) => void): () => void {
    this.commitListeners.add(listener)
    return () => this.commitListeners.delete(listener)
  }

  onReplace(listener: ReplaceListener): void {
    this.replaceListeners.push(listener)
  }

  /** Announces a transaction's changes to the other replicas (delivered at its commit). */
  async notify(
    sql: TransactionSql,
    changes: readonly Change[],
    touched: TouchedKeys,
  ): Promise<void> {
    if (changes.length === 0) return
    const noticed: [CollectionName, string][] = []
    for (const { collection, id } of changes)
      if (noticedCollections.has(collection)) noticed.push([collection, id])
    const notice: Notice = { r: this.replica, k: [...touched.values()], c: noticed }
    let payload = JSON.stringify(notice)
    if (payload.length > MAX_PAYLOAD) payload = JSON.stringify({ r: this.replica, all: 1 })
    await sql`SELECT pg_notify(${this.channel}, ${payload})`
  }

  async notifyReplace(sql: TransactionSql): Promise<void> {
    await sql`SELECT pg_notify(${this.channel}, ${JSON.stringify({ r: this.replica, replace: 1 })})`
  }

  /** A transaction of this replica committed. */
  committed(changes: readonly Change[], touched: TouchedKeys): void {
    if (changes.length === 0) return
    this.version++
    for (const name of touched.keys()) this.keys.set(name, this.version)
    for (const listener of this.commitListeners) listener(changes)
  }

  /** The whole state was replaced; settles once every listener's reload has. */
  replaced(): Promise<unknown> {
    this.floor = ++this.version
    this.keys.clear()
    return Promise.allSettled(this.replaceListeners.map((listener) => listener()))
  }

  private heard(payload: string): void {
    let notice: Notice
    try {
      notice = JSON.parse(payload) as Notice
    } catch {
      return
    }
    if (notice.r === this.replica) return
    if (notice.replace) {
      void this.replaced()
      return
    }
    this.version++
    if (notice.all) {
      // Too much to name: whatever this replica derived from rows starts over.
      void this.replaced()
      return
    }
    for (const [index, key] of notice.k ?? []) this.keys.set(`${index}\0${key}`, this.version)
    if (notice.c?.length) {
      const named = notice.c
      this.remote = this.remote.then(() => this.deliver(named)).catch(() => {})
    }
  }

  /** Tells the listeners of another replica's commit, with its rows as they now stand. */
  private async deliver(named: [CollectionName, string][]): Promise<void> {
    const ids = new Map<CollectionName, string[]>()
    for (const [collection, id] of named) {
      const list = ids.get(collection)
      if (list) list.push(id)
      else ids.set(collection, [id])
    }
    const rows = new Map<CollectionName, Map<string, Record<string, unknown>>>()
    for (const [collection, list] of ids)
      rows.set(collection, await this.fetchRows(collection, list))
    const changes: Change[] = named.map(([collection, id]) => ({
      collection,
      id,
      row: rows.get(collection)?.get(id),
    }))
    for (const listener of this.commitListeners) listener(changes)
  }

  async close(): Promise<void> {
    await this.unlisten?.()
  }
}

/** The versioned index keys a transaction's writes touched, by `index\0key`. */
export type TouchedKeys = Map<string, [IndexName, string]>

export function touch(touched: TouchedKeys, index: IndexName, key: string): void {
  touched.set(`${index}\0${key}`, [index, key])
}
