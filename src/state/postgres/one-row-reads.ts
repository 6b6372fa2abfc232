import type { Row } from './rows.js'

/** Reads a statement takes at most: few enough that the texts stay few (each is prepared). */
const MAX_READS = 4

/** The names of the columns a statement answers, its text, its parameters, and who waits. */
type Read = [readonly string[], string, unknown[], (row: Row | undefined, error?: unknown) => void]

/**
 * The one-row reads (by id, the first under a key, a count) started in one tick, such as a
 * session and its user, or a partner's events and deliveries counted, sent as one statement
 * (or one per MAX_READS): each a subquery LEFT JOINed to a single row, so one that finds nothing
 * leaves its columns NULL. Outside transactions only.
 */
export class OneRowReads {
  private waiting: Read[] = []

  /** `send` answers a statement's rows, each as its values in column order. */
  constructor(private readonly send: (text: string, params: unknown[]) => Promise<unknown[][]>) {}

  read(columns: readonly string[], text: string, params: unknown[]): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      const done = (row: Row | undefined, error?: unknown) => (error ? reject(error) : resolve(row))
      if (this.waiting.push([columns, text, params, done]) === 1)
        queueMicrotask(() => {
          const reads = this.waiting.splice(0)
          for (let at = 0; at < reads.length; at += MAX_READS)
            void this.flush(reads.slice(at, at + MAX_READS))
        })
    })
  }

  private async flush(reads: Read[]): Promise<void> {
    let from = 0
    const joins = reads.map(([, text, params], i) => {
      const renumbered = text.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + from}`)
      from += params.length
      return ` LEFT JOIN (${renumbered}) r${i} ON true`
    })
    const text = `SELECT * FROM (SELECT) one${joins.join('')}`
    const params = reads.flatMap((read) => read[2])
    let found: unknown[][]
    try {
      found = await this.send(text, params)
    } catch (error) {
      for (const [, , , done] of reads) done(undefined, error)
      return
    }
    const values = found[0] ?? []
    let at = 0
    for (const [columns, , , done] of reads) {
      const row: Row = {}
      for (const name of columns) row[name] = values[at++] ?? null
      done(row[columns[0] as string] === null ? undefined : row)
    }
  }
}
