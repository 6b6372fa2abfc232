import type { ListenMeta, Sql, TransactionSql } from 'postgres'
import type { IndexName } from '../indexes.js'
import type { Change } from '../seam.js'

/** A notice bigger than this says "everything changed" instead of naming keys (limit 8000). */
const MAX_PAYLOAD = 7000

interface Notice {
  /** The replica that committed. */
  r: string
  /** Versioned index keys whose rows changed: `[index, key]`. */
  k?: [IndexName, string][]
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
  private readonly replaceListeners: (() => void)[] = []
  private unlisten: (() => Promise<void>) | undefined

  private constructor(
    private readonly channel: string,
    private readonly replica: string,
  ) {}

  static async listen(sql: Sql, schema: string, replica: string): Promise<ChangeNotices> {
    const notices = new ChangeNotices(`partner_sandbox_${schema}`, replica)
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

  onReplace(listener: () => void): void {
    this.replaceListeners.push(listener)
  }

  /** Announces a transaction's changes to the other replicas (delivered at its commit). */
  async notify(
    sql: TransactionSql,
    changes: readonly Change[],
    touched: TouchedKeys,
  ): Promise<void> {
    if (changes.length === 0) return
    const notice: Notice = { r: this.replica, k: [...touched.values()] }
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

  /** This replica replaced the whole state. */
  replaced(): void {
    this.floor = ++this.version
    this.keys.clear()
    for (const listener of this.replaceListeners) listener()
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
      this.replaced()
      return
    }
    this.version++
    if (notice.all) {
      this.floor = this.version
      this.keys.clear()
      return
    }
    for (const [index, key] of notice.k ?? []) this.keys.set(`${index}\0${key}`, this.version)
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
