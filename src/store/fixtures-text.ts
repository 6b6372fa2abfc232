import { closeSync, openSync, readSync } from 'node:fs'
import { type Row, shareValues } from './shared-values.js'

/** Bytes read at a time, and rows parsed together: as for the data file (snapshot-lines.ts). */
const BLOCK = 1024 * 1024
const ROW_LISTS = new Set(['partners', 'users'])

/**
 * Reads a fixtures file, its `partners` and `users` lists a batch of rows at a time, each
 * row's repeated values shared (shared-values.ts) as soon as its batch is parsed.
 *
 * One `JSON.parse` of the whole file made all 100k rows of a large file at once, so they were
 * promoted to the old generation before sharing dropped their repeated values: 25 MB of old
 * garbage, and a heap sized for it, kept until the next full collection. The file's text
 * (68 MB) lived as long. Read a block at a time, no text larger than a batch exists and what
 * is dropped dies young, as with the data file.
 *
 * Answers what `JSON.parse` of the file answers; a file this reader does not follow (invalid
 * JSON, a list given twice) answers `undefined`, for the caller to parse whole, which words
 * every error.
 */
export function readFixturesFile(path: string): unknown {
  const fd = openSync(path, 'r')
  try {
    const lists = findRowLists(fd)
    return lists && assemble(fd, lists)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

interface RowList {
  name: string
  /** Byte offsets of the list's `[` and `]`. */
  open: number
  close: number
  /** Byte spans of whole rows, comma-separated, in order; together, all of the list's rows. */
  batches: [number, number][]
}

function assemble(fd: number, lists: RowList[]): unknown {
  let envelope = ''
  let from = 0
  for (const list of lists) {
    envelope += `${text(fd, from, list.open)}[]`
    from = list.close + 1
  }
  const doc = JSON.parse(envelope + text(fd, from, Number.POSITIVE_INFINITY)) as Record<
    string,
    unknown
  >
  const partnerIds = new Map<string, string>()
  for (const list of lists) {
    const rows: unknown[] = []
    for (const [n, [start, end]] of list.batches.entries()) {
      const rowsText = text(fd, start, end)
      // Nothing after a cut: a trailing comma, which only the whole parse words right.
      if (n > 0 && rowsText.trim() === '') return undefined
      const batch = JSON.parse(`[${rowsText}]`) as unknown[]
      for (const row of batch) {
        if (row !== null && typeof row === 'object') shareValues(row as Row, undefined, partnerIds)
        rows.push(row)
      }
    }
    doc[list.name] = rows
  }
  return doc
}

/** The file's text from byte `start` to `end` (cut only next to ASCII, so whole characters). */
function text(fd: number, start: number, end: number): string {
  const chunks: Buffer[] = []
  for (let at = start; at < end; ) {
    const buf = Buffer.allocUnsafe(Math.min(BLOCK * 4, end - at))
    const read = readSync(fd, buf, 0, buf.length, at)
    if (read === 0) break
    chunks.push(read < buf.length ? buf.subarray(0, read) : buf)
    at += read
  }
  return Buffer.concat(chunks).toString('utf8')
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c

/** The top-level `partners` and `users` lists, cut into batches between rows. */
function findRowLists(fd: number): RowList[] | undefined {
  const lists: RowList[] = []
  const stack: number[] = []
  const buf = Buffer.allocUnsafe(BLOCK)
  let list: RowList | undefined
  let batchStart = 0
  let inString = false
  let escaped = false
  let topString = false
  let stringStart = 0
  let keyStart = -1
  let keyEnd = -1
  // What the next non-space byte may continue: a top-level string (a key if `:` follows),
  // a key's colon (a row list if `[` follows), or a long batch's last row (cut if `,` follows).
  let after: 'none' | 'string' | 'colon' | 'row' = 'none'
  let rowEnd = 0
  let position = 0
  for (;;) {
    const read = readSync(fd, buf, 0, BLOCK, position)
    if (read === 0) break
    // The next backslash at or after the bytes looked at (BLOCK: none in this block).
    let nextSlash = -1
    for (let i = 0; i < read; i++) {
      const b = buf[i] as number
      if (inString) {
        if (escaped) {
          escaped = false
          continue
        }
        // Most bytes are inside strings: jump to the next quote or backslash.
        const quote = buf.indexOf(QUOTE, i)
        if (nextSlash < i) nextSlash = buf.indexOf(BACKSLASH, i)
        if (nextSlash === -1) nextSlash = BLOCK
        const stop = quote === -1 || quote >= read ? read : quote
        if (nextSlash < stop) {
          escaped = true
          i = nextSlash
          continue
        }
        i = stop
        if (stop === read) continue
        inString = false
        if (topString) {
          keyStart = stringStart
          keyEnd = position + i + 1
          after = 'string'
        }
        continue
      }
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue
      const at = position + i
      const was = after
      after = 'none'
      if (was === 'string' && b === COLON) {
        after = 'colon'
        continue
      }
      const name = was === 'colon' && b === 0x5b ? keyName(fd, keyStart, keyEnd) : ''
      if (ROW_LISTS.has(name)) {
        if (lists.some((l) => l.name === name)) return undefined
        list = { name, open: at, close: -1, batches: [] }
        lists.push(list)
        stack.push(b)
        batchStart = at + 1
        continue
      }
      if (was === 'row' && b === COMMA && list) {
        list.batches.push([batchStart, rowEnd])
        batchStart = at + 1
        continue
      }
      if (b === QUOTE) {
        inString = true
        topString = stack.length === 1 && stack[0] === 0x7b && !list
        stringStart = at
      } else if (b === 0x7b || b === 0x5b) stack.push(b)
      else if (b === 0x7d || b === 0x5d) {
        if (stack.pop() !== b - 2) return undefined
        if (list && stack.length === 1) {
          // The list closed: its last batch runs to here.
          list.close = at
          list.batches.push([batchStart, at])
          list = undefined
        } else if (list && stack.length === 2 && at + 1 - batchStart >= BLOCK) {
          after = 'row'
          rowEnd = at + 1
        }
      }
    }
    position += read
  }
  return stack.length === 0 && !inString ? lists : undefined
}

function keyName(fd: number, start: number, end: number): string {
  if (end - start > 64) return ''
  const name = JSON.parse(text(fd, start, end)) as unknown
  return typeof name === 'string' ? name : ''
}
