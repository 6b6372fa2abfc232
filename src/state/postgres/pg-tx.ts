import type pg from 'pg'
import type { CollectionName, Collections } from '../../store/records.js'
import { checkScope } from '../../store/tenants.js'
import type { IndexName } from '../indexes.js'
import type { StateTx } from '../seam.js'
import { holdsNul, PgReader } from './pg-reader.js'
import { prepared } from './pool.js'
import { paramsOf, type Row } from './rows.js'
import { tableStatements } from './statements.js'
import { tables } from './tables.js'

/**
 * One attempt of a transaction, on its own connection. Writes are sent as they are made and
 * not awaited one by one: the connection pipelines them, and a later read of the transaction,
 * sent behind them, sees them. Their answers are awaited before COMMIT.
 * A failure to reach the database is told as such by the transaction (pool.ts, transact).
 */
export class PgTx extends PgReader implements StateTx {
  readonly after: (() => void)[] = []
  /** The first statement that failed: it aborted the transaction. */
  private failure: unknown
  private readonly pending: Promise<unknown>[] = []
  private open = true
  /**
   * What this transaction read of each collection, until it writes that collection: read again,
   * PostgreSQL would answer alike (a SERIALIZABLE transaction reads one snapshot and its own
   * writes), so the partner and its endpoints are read once however many events it records.
   */
  private readonly reads = new Map<CollectionName, Map<string, Promise<Row[]>>>()

  constructor(
    private readonly client: pg.ClientBase,
    partner: string | undefined,
  ) {
    super(async (text, params = []) => (await this.statement(text, params)).rows, partner)
  }

  /**
   * Sends a statement at once: the connection pipelines (pool.ts), and PostgreSQL runs a
   * connection's statements in the order sent. `refused` says why when it wrote no row (a
   * guarded upsert). Once one failed, the transaction is aborted: each later one fails with
   * that one's error, which says why (not "transaction aborted").
   */
  private async statement(text: string, params: unknown[], refused?: () => void) {
    if (this.failure !== undefined) throw this.failure
    // Ended (its function threw): one sent now would run after ROLLBACK, or in the next.
    if (!this.open) throw new Error('the transaction ended before this statement was sent')
    try {
      const result = await this.client.query(prepared(text, params))
      if (result.rowCount === 0) refused?.()
      return result
    } catch (error) {
      this.failure ??= error
      throw this.failure
    }
  }

  protected override run(text: string, params: unknown[], of?: CollectionName) {
    if (of === undefined) return super.run(text, params)
    const reads = this.reads.get(of) ?? new Map<string, Promise<Row[]>>()
    this.reads.set(of, reads)
    const key = text + JSON.stringify(params)
    const found = reads.get(key) ?? super.run(text, params)
    reads.set(key, found)
    return found
  }

  put<K extends CollectionName>(collection: K, row: Collections[K]): void {
    this.reads.delete(collection)
    const id = (row as Row).id as string
    if (this.partner !== undefined && tables[collection].tenant)
      checkScope(collection, row as Row, this.partner)
    this.write(tableStatements(collection, false).upsert, paramsOf(collection, row as Row), () => {
      throw new Error(`a ${collection} row stays with its partner (${id} would move)`)
    })
  }

  remove(collection: CollectionName, id: string): void {
    this.reads.delete(collection)
    // Scoped: another partner's row is not this transaction's to remove (nor to see).
    const scoped = this.scopes(collection)
    this.write(tableStatements(collection, scoped).remove, [id, ...this.tail(scoped)])
  }

  /** Rows due under `key` (order value at most `upTo`), locked; rows another holds are skipped. */
  takeDue<I extends IndexName>(index: I, key: string, upTo: string, limit: number) {
    return this.indexRows(index, 'due', [key, upTo, limit])
  }

  /** Sends a write in turn, not awaited here: its failure is `failure` (see written). */
  private write(text: string, params: unknown[], refused?: () => void): void {
    if (!this.open) throw new Error('write after the transaction ended')
    if (holdsNul(params)) throw new Error('a row cannot hold a NUL character')
    this.pending.push(this.statement(text, params, refused).catch(() => {}))
  }

  afterCommit(fn: () => void): void {
    this.after.push(fn)
  }

  /** Awaits every write; the first that failed fails the transaction. */
  async written(): Promise<void> {
    await Promise.all(this.pending)
    if (this.failure !== undefined) throw this.failure
  }

  close(): void {
    this.open = false
  }
}
