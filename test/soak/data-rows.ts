import { existsSync, readFileSync } from 'node:fs'

/**
 * How many rows a running sandbox stores, read from its data file (the snapshot, then the
 * journal entries after it) in this process, so counting costs the sandbox nothing. A
 * compaction may move entries between the reads: the journal's sequence numbers must follow
 * the snapshot's without a gap, or the count is read again.
 */
export function countRows(dataFile: string): number {
  for (let attempt = 0; attempt < 10; attempt++) {
    const count = tryCount(dataFile)
    if (count !== undefined) return count
  }
  throw new Error(`cannot read a consistent row count from ${dataFile}`)
}

type Op =
  | ['put', string, { id: string }]
  | ['del', string, string]
  | ['replace', Record<string, Record<string, unknown>>]

function tryCount(dataFile: string): number | undefined {
  const snapshot = existsSync(dataFile)
    ? (JSON.parse(readFileSync(dataFile, 'utf8')) as {
        seq: number
        collections: Record<string, Record<string, unknown>>
      })
    : { seq: 0, collections: {} }
  const rows = new Set<string>()
  for (const [name, byId] of Object.entries(snapshot.collections))
    for (const id in byId) rows.add(`${name}/${id}`)
  let seq = snapshot.seq
  for (const file of [`${dataFile}.journal.compacting`, `${dataFile}.journal`]) {
    if (!existsSync(file)) continue
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue
      let entry: { s: number; o: Op[] }
      try {
        entry = JSON.parse(line)
      } catch {
        break // a line being written
      }
      if (entry.s <= seq) continue
      if (entry.s !== seq + 1) return undefined
      seq = entry.s
      for (const op of entry.o) {
        if (op[0] === 'put') rows.add(`${op[1]}/${op[2].id}`)
        else if (op[0] === 'del') rows.delete(`${op[1]}/${op[2]}`)
        else {
          rows.clear()
          for (const [name, byId] of Object.entries(op[1]))
            for (const id in byId) rows.add(`${name}/${id}`)
        }
      }
    }
  }
  return rows.size
}
