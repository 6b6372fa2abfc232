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

/**
 * How long a request waits for a commit number nobody announced (see catchUp). A commit that
 * failed after taking its number announces that number as a gap at once; only a replica that
 * died between the two leaves one unannounced, so this is long enough for any notice to arrive
 * on a loaded machine (50 ms was not: requests then read before commits they came after).
 */
export const GAP_WAIT_MS = 2_000

/** Numbers heard above a hole in them, at most, before the hole is given up on. */
const MAX_ABOVE = 1_000

/**
 * A notice sent by a statement of its own ($1 the channel, $2 the notice's JSON without its
 * closing brace), numbered by the database: `{…` becomes `{…,"n":123}`.
 */
export const NOTICE_ALONE =
  `SELECT n, pg_notify($1::text, $2::text || ',"n":' || n || '}') ` +
  "FROM (SELECT nextval('sandbox_commits') AS n) AS numbered"

/** A notice bigger than this says "everything changed" instead of naming keys (limit 8000). */
const MAX_PAYLOAD = 7000

interface Notice {
  /** The replica that committed. */
  r: string
  /** The commit's number (sequence sandbox_commits), added by the database. */
  n: number
  /** Versioned index keys whose rows changed: `[index, key]`. */
  k?: [IndexName, string][]
  /**
   * More of them, added by the database: the keys rows had before the transaction's last write
   * moved them, as objects by index name (statements.ts batchWriteNoticeOf).
   */
  b?: Record<string, unknown>[]
  /** Rows of the noticed collections written: `[collection, id]`. */
  c?: [CollectionName, string][]
  /** Every key may have changed (too many to name), or the whole state was replaced. */
  all?: 1
  replace?: 1
  /** The number was taken by a transaction that did not commit: nothing comes under it. */
  gap?: 1
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
  /**
   * Every commit number up to here was heard (its rows delivered to the listeners) or is known
   * never to come. Numbers are taken before commit, so notices may arrive out of their order:
   * those heard above the frontier wait in `above` until the ones below them arrive.
   */
  private frontier = 0
  private readonly above = new Set<number>()
  /** Requests waiting to be current (catchUp), each for a commit number. */
  private readonly waiters = new Set<{ upTo: number; resolve: () => void }>()

  private constructor(
    private readonly fetchRows: RowFetcher,
    private readonly channel: string,
    /** This replica's name among those sharing the database (notices, lease holders). */
    readonly replica: string,
    private readonly gapWaitMs: number,
  ) {}

  static async listen(
    sql: Sql,
    schema: string,
    replica: string,
    fetchRows: RowFetcher,
    { gapWaitMs = GAP_WAIT_MS }: { gapWaitMs?: number } = {},
  ): Promise<ChangeNotices> {
    const notices = new ChangeNotices(fetchRows, `partner_sandbox_${schema}`, replica, gapWaitMs)
    const meta: ListenMeta = await sql.listen(notices.channel, (payload) =>
      notices.onNotice(payload),
    )
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

  /**
   * A transaction's notice, announcing its changes to the other replicas (delivered at its
   * commit), but for the database's part: the statement that sends it appends the number it
   * takes, and the keys its writes moved (statements.ts batchWriteNoticeOf). Undefined when
   * nothing changed.
   */
  noticeOf(changes: readonly Change[], touched: TouchedKeys): NoticeParts | undefined {
    if (changes.length === 0) return undefined
    const noticed: [CollectionName, string][] = []
    for (const { collection, id } of changes)
      if (noticedCollections.has(collection)) noticed.push([collection, id])
    const whole = JSON.stringify({ r: this.replica, all: 1 } satisfies Omit<Notice, 'n'>)
    const notice: Omit<Notice, 'n'> = { r: this.replica, k: [...touched.values()], c: noticed }
    const payload = JSON.stringify(notice)
    return {
      channel: this.channel,
      head: (payload.length > MAX_PAYLOAD ? whole : payload).slice(0, -1),
      whole: whole.slice(0, -1),
    }
  }

  /** Sends a notice's head, numbered by the database; answers its number. */
  private async send(sql: TransactionSql, head: string): Promise<number> {
    // `{…` becomes `{…,"n":123}`: the number is taken as the notice is sent, last in the
    // transaction, so the numbers of committed transactions come nearly without gaps.
    const [sent] = await sql.unsafe<{ n: string }[]>(NOTICE_ALONE, [this.channel, head])
    return Number(sent?.n ?? 0)
  }

  /**
   * Resolves once every commit numbered up to the last one announced has been heard. A number
   * that never comes (taken by a replica that died before it committed) is given up on after
   * the gap wait; a commit that failed here or elsewhere announces its number as a gap.
   */
  async catchUp(lastAnnounced: () => Promise<number>): Promise<void> {
    const upTo = await lastAnnounced()
    if (upTo <= this.frontier) return
    await new Promise<void>((resolve) => {
      const waiter = { upTo, resolve }
      this.waiters.add(waiter)
      setTimeout(() => {
        if (!this.waiters.delete(waiter)) return
        this.skipTo(upTo)
        resolve()
      }, this.gapWaitMs).unref()
    })
  }

  /** Commits up to `n` were made before this replica listened: none is to wait for. */
  startAt(n: number): void {
    this.skipTo(n)
  }

  /**
   * A transaction took `n` and did not commit: this replica stops waiting for it, and tells the
   * others so they do not wait the gap wait for it either.
   */
  async gap(sql: Sql, n: number): Promise<void> {
    this.markHeard(n)
    const payload = JSON.stringify({ r: this.replica, n, gap: 1 } satisfies Notice)
    await sql`SELECT pg_notify(${this.channel}, ${payload})`
  }

  /** Notes commit `n` as heard and wakes who waited for it and every number below it. */
  private markHeard(n: number): void {
    if (n <= this.frontier) return
    this.above.add(n)
    // A replica nobody asks to catch up (no request waits, so no give-up runs) would keep
    // every number above a lost one: past MAX_ABOVE of them, the lowest hole is given up.
    if (this.above.size > MAX_ABOVE) this.skipTo(Math.min(...this.above) - 1)
    this.advance()
  }

  /** Counts every number up to `n` as heard, come or not (given up on, or before listening). */
  private skipTo(n: number): void {
    if (n <= this.frontier) return
    this.frontier = n
    for (const heard of this.above) if (heard <= n) this.above.delete(heard)
    this.advance()
  }

  private advance(): void {
    while (this.above.delete(this.frontier + 1)) this.frontier++
    for (const waiter of this.waiters) {
      if (waiter.upTo > this.frontier) continue
      this.waiters.delete(waiter)
      waiter.resolve()
    }
  }

  notifyReplace(sql: TransactionSql): Promise<number> {
    return this.send(sql, JSON.stringify({ r: this.replica, replace: 1 }).slice(0, -1))
  }

  /** A transaction of this replica committed, with the number its notice took. */
  committed(changes: readonly Change[], touched: TouchedKeys, number = 0): void {
    this.markHeard(number)
    if (changes.length === 0) return
    this.version++
    for (const name of touched.keys()) this.keys.set(name, this.version)
    for (const listener of this.commitListeners) listener(changes)
  }

  /**
   * The whole state was replaced (its notice numbered `number`): settles once every listener's
   * reload has, and only then counts the notice as heard, so a request waiting to be current
   * (catchUp) reads what is derived from the new rows.
   */
  async replaced(number = 0): Promise<void> {
    this.floor = ++this.version
    this.keys.clear()
    await Promise.allSettled(this.replaceListeners.map((listener) => listener()))
    this.markHeard(number)
  }

  private onNotice(payload: string): void {
    let notice: Notice
    try {
      notice = JSON.parse(payload) as Notice
    } catch {
      return
    }
    // This replica's own: applied as it committed.
    if (notice.r === this.replica) return
    if (notice.gap) {
      this.remote = this.remote.then(() => this.markHeard(notice.n))
      return
    }
    if (notice.replace || notice.all) {
      // A replace, or too much to name: whatever this replica derived from rows starts over.
      this.version++
      this.remote = this.remote.then(() => this.replaced(notice.n))
      return
    }
    this.version++
    for (const [index, key] of notice.k ?? []) this.keys.set(`${index}\0${key}`, this.version)
    for (const moved of notice.b ?? [])
      for (const [index, key] of Object.entries(moved ?? {}))
        if (typeof key === 'string') this.keys.set(`${index}\0${key}`, this.version)
    const named = notice.c ?? []
    // In the order heard: a commit counts as heard once its rows reached the listeners.
    this.remote = this.remote
      .then(() => (named.length > 0 ? this.deliver(named) : undefined))
      .catch(() => {})
      .then(() => this.markHeard(notice.n))
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

/** A notice, for a statement that completes and sends it. */
export interface NoticeParts {
  channel: string
  /** The notice's JSON without its closing brace. */
  head: string
  /** The same of the notice that says everything changed: sent instead of one too long. */
  whole: string
}

/** The versioned index keys a transaction's writes touched, by `index\0key`. */
export type TouchedKeys = Map<string, [IndexName, string]>

export function touch(touched: TouchedKeys, index: IndexName, key: string): void {
  touched.set(`${index}\0${key}`, [index, key])
}
