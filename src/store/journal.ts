import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { DataFileError, FILE_MODE } from './snapshot-file.js'

/**
 * The append-only half of the data file. Each acknowledged write is one JSON line, written
 * with a synchronous `write(2)` before the response is sent, so it survives a `kill -9`
 * (the kernel holds it) without rewriting the whole data set. Compaction folds the journal
 * into the snapshot: the live journal is renamed to `.compacting` and a fresh one opened
 * in the same tick, so appends never wait for the snapshot to be written.
 */

export type JournalOp =
  | ['put', string, Record<string, unknown> & { id: string }]
  | ['del', string, string]
  | ['replace', Record<string, Record<string, unknown>>]

export interface JournalEntry {
  s: number
  o: JournalOp[]
}

export interface ReplayReport {
  entries: JournalEntry[]
  /** Set when a torn (half-written) last line was found and cut off. */
  droppedTornLine?: string
}

/** One line; anything that is not `{ s: number, o: [...] }` counts as corrupt. */
function parseEntry(line: string): JournalEntry {
  const entry = JSON.parse(line) as JournalEntry
  if (!entry || typeof entry.s !== 'number' || !Array.isArray(entry.o))
    throw new Error('not a journal entry')
  return entry
}

export class Journal {
  readonly path: string
  readonly compactingPath: string
  private fd: number
  private bytes = 0

  constructor(path: string) {
    this.path = path
    this.compactingPath = `${path}.compacting`
    this.fd = openSync(path, 'a', FILE_MODE)
  }

  get size(): number {
    return this.bytes
  }

  append(entry: JournalEntry, fsync = false): void {
    const line = `${JSON.stringify(entry)}\n`
    this.bytes += writeSync(this.fd, line)
    if (fsync) fsyncSync(this.fd)
  }

  /** Starts a compaction: the current journal becomes `.compacting`, appends go to a new file. */
  rotate(): void {
    closeSync(this.fd)
    if (existsSync(this.compactingPath)) {
      // A previous compaction did not finish; keep its entries by folding them in first.
      const older = readFileSync(this.compactingPath, 'utf8')
      const newer = readFileSync(this.path, 'utf8')
      const fd = openSync(this.compactingPath, 'w', FILE_MODE)
      writeSync(fd, older + newer)
      closeSync(fd)
      rmSync(this.path)
    } else {
      renameSync(this.path, this.compactingPath)
    }
    this.fd = openSync(this.path, 'a', FILE_MODE)
    this.bytes = 0
  }

  /** Ends a compaction once the snapshot holding its entries is safely on disk. */
  finishCompaction(): void {
    rmSync(this.compactingPath, { force: true })
  }

  close(): void {
    closeSync(this.fd)
  }

  /** Reads `.compacting` then the live journal; a torn last line is dropped and truncated off. */
  static replay(path: string): ReplayReport {
    const entries: JournalEntry[] = []
    let droppedTornLine: string | undefined
    for (const file of [`${path}.compacting`, path]) {
      if (!existsSync(file)) continue
      const text = readFileSync(file, 'utf8')
      const lines = text.split('\n')
      let offset = 0
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] as string
        const isLast = i === lines.length - 1
        if (line === '') {
          offset += 1
          continue
        }
        try {
          entries.push(parseEntry(line))
          offset += Buffer.byteLength(line) + 1
        } catch {
          const endsFile = isLast || lines.slice(i + 1).every((rest) => rest === '')
          if (!endsFile) {
            throw new DataFileError(
              `${file} line ${i + 1} is corrupt and is not the last line, so later writes cannot be ` +
                'trusted. The data file was left untouched.',
            )
          }
          droppedTornLine = `${file} line ${i + 1} (${Buffer.byteLength(line)} bytes)`
          const fd = openSync(file, 'r+')
          ftruncateSync(fd, offset)
          closeSync(fd)
          break
        }
      }
    }
    return { entries, droppedTornLine }
  }
}
