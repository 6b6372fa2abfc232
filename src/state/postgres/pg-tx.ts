import type pg from 'pg'
import type { CollectionName, Collections } from '../../store/records.js'
import { checkScope } from '../../store/tenants.js'
import { outageOf } from '../database-error.js'
import type { IndexName } from '../indexes.js'
import type { Change, StateTx } from '../seam.js'
import { tableOf } from './index-sql.js'
import { holdsNul, PgReader, type Row } from './pg-reader.js'
import { prepared } from './pool.js'
import { paramsOf } from './rows.js'
import { indexStatements, tableStatements } from './statements.js'
import { tables } from './tables.js'

/**
 * One attempt of a transaction, on its own connection. Writes are sent as they are made and
 * not awaited one by one; each statement waits for the one before (a connection runs one at a
 * time), so a later read of the transaction sees them. Their answers are awaited before COMMIT.
 */
export class PgTx extends PgReader implements StateTx {
  readonly changes: Change[] = []
  readonly after: (() => void)[] = []
  /** The first statement that failed: it aborted the transaction. */
  failure: unknown
  private pending: Promise<unknown>[] = []
  private open = true
  /** The statement sent last. */
  private last: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly client: pg.ClientBase,
    url: string,
    partner: string | undefined,
  ) {
    super(
      (text, params = []) =>
        this.inTurn(async () => {
          // A write that failed aborted the transaction: say why, not "transaction aborted".
          if (this.failure !== undefined) throw this.failure
          try {
            return (await client.query(prepared(text, params))).rows
          } catch (error) {
            this.failure ??= error
            throw outageOf(error, url)
          }
        }),
      partner,
    )
  }

  /** Runs `statement` once every statement sent before it has answered. */
  private inTurn<T>(statement: () => Promise<T>): Promise<T> {
    const next = this.last.then(statement, statement)
    this.last = next.catch(() => {})
    return next
  }

  put<K extends CollectionName>(collection: K, row: Collections[K]): void {
    const id = (row as Row).id as string
    if (this.partner !== undefined && tables[collection].tenant)
      checkScope(collection, row as Row, this.partner)
    this.write(tableStatements(collection, false).upsert, paramsOf(collection, row as Row), () => {
      throw new Error(`a ${collection} row stays with its partner (${id} would move)`)
    })
    this.changes.push({ collection, id, row: row as Row })
  }

  remove(collection: CollectionName, id: string): void {
    // Scoped: another partner's row is not this transaction's to remove (nor to see).
    const scoped = this.scopes(collection)
    this.write(tableStatements(collection, scoped).remove, [id, ...this.tail(scoped)])
    this.changes.push({ collection, id, row: undefined })
  }

  /** Rows due under `key` (order value at most `upTo`), locked; rows another holds are skipped. */
  async takeDue<I extends IndexName>(index: I, key: string, upTo: string, limit: number) {
    const scoped = this.scopes(tableOf(index))
    const text = indexStatements(index, scoped).due
    return this.rowsOf(index, await this.run(text, [key, upTo, limit, ...this.tail(scoped)]))
  }

  /** Sends a write in turn; `refused` says why when it wrote no row (a guarded upsert). */
  private write(text: string, params: unknown[], refused?: () => void): void {
    if (!this.open) throw new Error('write after the transaction ended')
    if (holdsNul(params)) throw new Error('a row cannot hold a NUL character')
    const sent = this.inTurn(async () => {
      if (this.failure !== undefined) return
      const { rowCount } = await this.client.query(prepared(text, params))
      if (rowCount === 0) refused?.()
    }).catch((error: unknown) => {
      this.failure ??= error
    })
    this.pending.push(sent)
  }

  afterCommit(fn: () => void): void {
    this.after.push(fn)
  }

  /** Awaits every write; the first that failed fails the transaction. */
  async written(): Promise<void> {
    await Promise.all(this.pending)
    this.pending = []
    if (this.failure !== undefined) throw this.failure
  }

  close(): void {
    this.open = false
  }
}
