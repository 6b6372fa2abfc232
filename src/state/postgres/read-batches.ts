import type { Row } from './rows.js'

/** Reads a statement takes at most: few enough that the texts stay few (each is prepared). */
const MAX_READS = 6

/** A read's columns, text and parameters; whether it may find many rows; and who waits. */
type Read = [readonly string[], string, unknown[], boolean, (rows: Row[], error?: unknown) => void]

/**
 * The reads started in one tick outside a transaction (the sandbox clock, a partner, a session,
 * its user, the rules a request can meet), sent as one statement, or one per MAX_READS: each a
 * subquery LEFT JOINed to a single row, so one that finds nothing leaves its columns NULL. A
 * statement takes one read of many rows at most: its rows are the statement's, the one-row
 * reads' values beside each (or one row of NULLs when it finds none).
 */
export class ReadBatches {
  private waiting: Read[] = []

  /** `send` answers a statement's rows, each as its values in column order. */
  constructor(private readonly send: (text: string, params: unknown[]) => Promise<unknown[][]>) {}

  /** The rows a statement finds: the first only, unless `many`. */
  read(columns: readonly string[], text: string, params: unknown[], many = false) {
    return new Promise<Row[]>((resolve, reject) => {
      const done = (rows: Row[], error?: unknown) => (error ? reject(error) : resolve(rows))
      if (this.waiting.push([columns, text, params, many, done]) === 1)
        queueMicrotask(() => {
          let batch: Read[] = []
          for (const read of this.waiting.splice(0)) {
            if (batch.length === MAX_READS || (read[3] && batch.some((r) => r[3]))) {
              void this.flush(batch)
              batch = []
            }
            batch.push(read)
          }
          void this.flush(batch)
        })
    })
  }

  private async flush(reads: Read[]): Promise<void> {
    let found: unknown[][]
    try {
      found = await this.send(
        statementOf(reads),
        reads.flatMap((read) => read[2]),
      )
    } catch (error) {
      for (const read of reads) read[4]([], error)
      return
    }
    let at = 0
    for (const [columns, , , many, done] of reads) {
      const rows: Row[] = []
      for (const values of many ? found : found.slice(0, 1)) {
        // A read that found nothing is NULL in every column, its first (an id, a count) too.
        if ((values[at] ?? null) === null) continue
        const row: Row = {}
        for (let i = 0; i < columns.length; i++) row[columns[i] as string] = values[at + i] ?? null
        rows.push(row)
      }
      at += columns.length
      done(rows)
    }
  }
}

/** The statements made so far, by their reads' texts: the same few, made once each. */
const made = new Map<string, string>()

/** The reads as one statement, each read's parameters numbered after the previous one's. */
function statementOf(reads: Read[]): string {
  const key = reads.map((read) => read[1]).join('\n')
  let text = made.get(key)
  if (text === undefined) {
    let from = 0
    const joins = reads.map(([, read, params], i) => {
      const renumbered = read.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + from}`)
      from += params.length
      return ` LEFT JOIN (${renumbered}) r${i} ON true`
    })
    text = `SELECT * FROM (SELECT) one${joins.join('')}`
    if (made.size < 1_000) made.set(key, text)
  }
  return text
}
