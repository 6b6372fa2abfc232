import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { DataFileError, FILE_MODE } from './snapshot-file.js'
import { shortWrite, storageError } from './storage-error.js'

/**
 * The append-only half of the data file. Each acknowledged write is one JSON line, written
 * with a synchronous `write(2)` before the response is sent, so it survives a `kill -9`
 * (the kernel holds it) without rewriting the whole data set. Compaction folds the journal
 * into the snapshot: the live journal is renamed to `.compacting` and a fresh one opened
 * in the same tick, so appends never wait for the snapshot to be written.
 *
 * A line is on disk whole or not at all: a write the disk cannot take (full, over quota,
 * read-only, failing), whether it fails or takes only part of the line, is cut off again
 * before the error is thrown (StorageError), so the file always ends with a whole line and the
 * next append starts a line of its own. A line that could not even be cut off (a read-only
 * remount) is cut off before the next append, which is refused until it can be.
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
  /** Bytes appended since the journal was opened or rotated (when to compact). */
  private bytes = 0
  /** Where the file ends after its last whole line. */
  private end: number
  /** Set while the file holds part of a line past `end` that could not be cut off yet. */
  private torn = false

  constructor(path: string) {
    this.path = path
    this.compactingPath = `${path}.compacting`
    this.fd = openSync(path, 'a', FILE_MODE)
    this.end = fstatSync(this.fd).size
  }

  get size(): number {
    return this.bytes
  }

  /** Writes one entry as a whole line, or throws a StorageError with the file as it was. */
  append(entry: JournalEntry, fsync = false): void {
    const line = Buffer.from(`${JSON.stringify(entry)}\n`)
    this.writeWhole(line, fsync)
    this.end += line.length
    this.bytes += line.length
  }

  /**
   * Whether the disk takes `bytes` more now: writes that many line breaks (empty lines, which
   * a replay skips, so a crash meanwhile leaves a journal as good as before) and cuts them off
   * again. Throws the StorageError a write of that size would.
   */
  probe(bytes: number, fsync = false): void {
    const padding = Buffer.alloc(Math.max(1, bytes), '\n')
    this.writeWhole(padding, fsync)
    this.torn = true
    try {
      this.cutBack()
    } catch {
      // Empty lines are as good as none: keep them rather than refuse the next write.
      this.end += padding.length
      this.torn = false
    }
  }

  /** Writes all of `data` after the last whole line (and syncs it), or leaves the file as it was. */
  private writeWhole(data: Buffer, fsync: boolean): void {
    this.cutBack()
    try {
      for (let at = 0; at < data.length; ) {
        const wrote = writeSync(this.fd, data, at, data.length - at)
        // A regular file takes nothing only when it can take nothing more (a full disk).
        if (wrote === 0) throw shortWrite(at, data.length)
        at += wrote
      }
      if (fsync) fsyncSync(this.fd)
    } catch (error) {
      this.torn = true
      try {
        this.cutBack()
      } catch {
        // Left torn: the next write tries again first, and is refused while it cannot.
      }
      throw storageError(error, this.path)
    }
  }

  /** Cuts the file back to its last whole line, if anything was written past it. */
  private cutBack(): void {
    if (!this.torn) return
    try {
      ftruncateSync(this.fd, this.end)
    } catch (error) {
      throw storageError(error, this.path)
    }
    this.torn = false
  }

  /**
   * Starts a compaction: the current journal becomes `.compacting`, appends go to a new file.
   * Either it happens whole or the files stay as they were (a StorageError is thrown): the
   * entries already there are never rewritten in place, so a full disk cannot lose them.
   */
  rotate(): void {
    this.cutBack()
    if (existsSync(this.compactingPath)) {
      // A previous compaction did not finish: its entries stay, and this journal's follow
      // them (appended, never rewritten). A crash before this journal is emptied leaves an
      // entry in both files, which a replay reads once (it skips numbers it has seen).
      appendWhole(this.compactingPath, readFileSync(this.path))
      try {
        ftruncateSync(this.fd, 0)
      } catch (error) {
        throw storageError(error, this.path)
      }
    } else {
      try {
        renameSync(this.path, this.compactingPath)
      } catch (error) {
        throw storageError(error, this.path)
      }
      let fd: number
      try {
        fd = openSync(this.path, 'a', FILE_MODE)
      } catch (error) {
        // No new journal (no inode left): the old one goes back to being the journal.
        renameSync(this.compactingPath, this.path)
        throw storageError(error, this.path)
      }
      closeSync(this.fd)
      this.fd = fd
    }
    this.end = 0
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

/** Appends all of `data` to the file at `path`, or cuts it back to its old end and throws. */
function appendWhole(path: string, data: Buffer): void {
  // Read too (its last byte, to find a torn line), so a+ rather than a.
  const fd = openSync(path, 'a+', FILE_MODE)
  let end = fstatSync(fd).size
  try {
    // An earlier append that could not be cut back left part of a line: cut it off first, or
    // it would join the first line appended now.
    if (end > 0 && lastByte(fd, end) !== NL) {
      end = readFileSync(path).lastIndexOf(NL) + 1
      ftruncateSync(fd, end)
    }
    for (let at = 0; at < data.length; ) {
      const wrote = writeSync(fd, data, at, data.length - at)
      if (wrote === 0) throw shortWrite(at, data.length)
      at += wrote
    }
  } catch (error) {
    try {
      ftruncateSync(fd, end)
    } catch {
      // Copies of the live journal's entries, the last one torn: cut off before the next append.
    }
    throw storageError(error, path)
  } finally {
    closeSync(fd)
  }
}

const NL = 0x0a

function lastByte(fd: number, size: number): number | undefined {
  const byte = Buffer.alloc(1)
  return readSync(fd, byte, 0, 1, size - 1) === 1 ? byte[0] : undefined
}
