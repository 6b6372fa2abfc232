import { closeSync, openSync, readSync } from 'node:fs'
import { type Row, shareValues } from './shared-values.js'

/**
 * Reads a snapshot written by snapshot-writer.ts a block of rows at a time. The file is one
 * JSON document laid out as
 *
 *   {"format":"partner-sandbox",…,"collections":{
 *   "users":{
 *   "<id>":{…row…},
 *   "<id>":{…row…}
 *   },
 *   …
 *   "scenarios":{
 *   }}}
 *
 * Parsing the whole file as one string kept that string (70 MB at 100k users) in the heap
 * until the next full collection, and the rows were walked again to check them; here every
 * 1 MiB read becomes one `JSON.parse` of the rows it holds, checked as they are put in place,
 * so no text larger than a block ever exists.
 *
 * Anything else (a file written by an earlier version on one line, a hand-edited or corrupt
 * file) answers `undefined`: the caller then parses the whole document as before, which
 * accepts any valid layout and words every error.
 */

const NL = 0x0a
const QUOTE = 0x22
const COMMA = 0x2c
const OPEN = 0x7b
const CLOSE = 0x7d
const COLON = 0x3a
const BLOCK = 1024 * 1024

export interface SnapshotLines {
  /** The document's fields before `collections`. */
  head: Record<string, unknown>
  /** Each collection's rows, checked: every row is an object whose `id` is its key. */
  collections: Map<string, Record<string, unknown>>
}

class NotThisLayout extends Error {}

/** `onCollection` hears of each collection once it is read whole (see StoreOptions). */
export function readSnapshotLines(
  path: string,
  onCollection?: (name: string, rows: Record<string, unknown>) => void,
): SnapshotLines | undefined {
  const fd = openSync(path, 'r')
  try {
    return read(fd, onCollection)
  } catch (error) {
    if (error instanceof NotThisLayout || error instanceof SyntaxError) return undefined
    throw error
  } finally {
    closeSync(fd)
  }
}

function read(
  fd: number,
  onCollection?: (name: string, rows: Record<string, unknown>) => void,
): SnapshotLines {
  let buf = Buffer.allocUnsafe(BLOCK)
  // Byte 0 stays free: a block of rows is parsed in place, between a `{` written over the
  // byte before its first line and a `}` over the byte after its last (no string concatenation).
  let filled = 1
  let position = 0
  let head: Record<string, unknown> | undefined
  const collections = new Map<string, Record<string, unknown>>()
  let rows: Record<string, unknown> | undefined
  let name = ''
  // What the previous line was: a row or a collection's end may be followed by more only
  // when it ended with a comma, as in the one JSON document the file must be.
  let previous: 'head' | 'open' | 'row' | 'row,' | 'close,' | 'end' = 'head'

  const partnerIds = new Map<string, string>()

  /** Rows from `start` to `end` (whole lines, the last one without its comma), put in place. */
  const putRows = (start: number, end: number) => {
    const into = rows as Record<string, unknown>
    buf[start - 1] = OPEN
    buf[end] = CLOSE
    const parsed = JSON.parse(buf.toString('utf8', start - 1, end + 1)) as Record<string, unknown>
    for (const id in parsed) {
      const row = parsed[id] as Row | null
      if (!row || typeof row !== 'object' || row.id !== id) throw new NotThisLayout()
      shareValues(row, id, partnerIds)
      // A key named like an Object.prototype member stays an own property, as JSON.parse made it.
      if (id === '__proto__') Object.defineProperty(into, id, { value: row, ...OWN })
      else into[id] = row
    }
  }

  for (;;) {
    const read = readSync(fd, buf, filled, buf.length - filled, position)
    position += read
    const end = filled + read
    let start = 1
    let batchStart = -1
    let batchEnd = -1
    for (let nl = buf.indexOf(NL, start); nl !== -1 && nl < end; nl = buf.indexOf(NL, start)) {
      const comma = buf[nl - 1] === COMMA
      const lineEnd = comma ? nl - 1 : nl
      if (previous === 'head' && !head) {
        head = header(buf.toString('utf8', start, nl))
      } else if (buf[start] === QUOTE && buf[lineEnd - 1] === CLOSE) {
        // A row: joins the block of rows parsed together.
        if (previous !== 'open' && previous !== 'row,') throw new NotThisLayout()
        if (batchStart < 0) batchStart = start
        batchEnd = lineEnd
        previous = comma ? 'row,' : 'row'
      } else {
        if (batchStart >= 0) putRows(batchStart, batchEnd)
        batchStart = -1
        const line = buf.toString('latin1', start, nl)
        if (line === '},' || line === '}}}') {
          if (previous !== 'open' && previous !== 'row') throw new NotThisLayout()
          onCollection?.(name, rows as Record<string, unknown>)
          rows = undefined
          previous = line === '},' ? 'close,' : 'end'
        } else if (buf[start] === QUOTE && buf[nl - 2] === COLON && buf[nl - 1] === OPEN) {
          if (previous !== 'head' && previous !== 'close,') throw new NotThisLayout()
          const parsedName = JSON.parse(buf.toString('utf8', start, nl - 2)) as unknown
          if (typeof parsedName !== 'string') throw new NotThisLayout()
          name = parsedName
          rows = {}
          collections.set(name, rows)
          previous = 'open'
        } else throw new NotThisLayout()
      }
      start = nl + 1
    }
    if (batchStart >= 0) putRows(batchStart, batchEnd)
    if (read === 0) {
      if (previous !== 'end' || buf.toString('utf8', start, end).trim() !== '')
        throw new NotThisLayout()
      return { head: head as Record<string, unknown>, collections }
    }
    // Keep the unfinished line; a line longer than the buffer (a large scenario) grows it,
    // but a first line that long is no header of this layout (an earlier version's file).
    filled = 1 + end - start
    if (!head) throw new NotThisLayout()
    if (start === 1) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)])
    else buf.copy(buf, 1, start, end)
  }
}

const OWN = { enumerable: true, writable: true, configurable: true }

const HEADER_END = ',"collections":{'

/** The first line: the document's fields up to `"collections":{`. */
function header(line: string): Record<string, unknown> {
  if (!line.startsWith('{') || !line.endsWith(HEADER_END)) throw new NotThisLayout()
  const head = JSON.parse(`${line.slice(0, -HEADER_END.length)}}`) as unknown
  if (!head || typeof head !== 'object' || Array.isArray(head)) throw new NotThisLayout()
  return head as Record<string, unknown>
}
