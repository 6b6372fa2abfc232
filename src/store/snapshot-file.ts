import { existsSync } from 'node:fs'
import { Low } from 'lowdb'
import { DataFile } from 'lowdb/node'
import { z } from 'zod'
import { type CollectionsData, collectionNames, emptyCollections } from './records.js'
import { readSnapshotLines } from './snapshot-lines.js'

/**
 * The snapshot half of the data file: a lowdb JSON document written atomically (temp file +
 * rename, see snapshot-writer.ts) at compaction. Between compactions, writes go to the journal.
 */

export const SNAPSHOT_FORMAT = 'partner-sandbox'
/** The data file and its journal hold password hashes and signing keys: owner only. */
export const FILE_MODE = 0o600
export const SCHEMA_VERSION = 1

export interface SnapshotDoc {
  format: typeof SNAPSHOT_FORMAT
  schema_version: number
  /** Sequence number of the last journal entry folded into this snapshot. */
  seq: number
  saved_at: string
  collections: CollectionsData
}

const envelope = z.object({
  format: z.literal(SNAPSHOT_FORMAT),
  schema_version: z.number().int(),
  seq: z.number().int().nonnegative(),
  saved_at: z.string(),
  // Rows are checked by a plain loop below: a zod walk over 50k rows costs ~0.4 s at start-up.
  collections: z.record(z.string(), z.unknown()),
})

/** A plain loop, no entry arrays: at 100k rows every allocation here shows in the start time. */
function checkRows(collections: Record<string, unknown>): string | undefined {
  for (const name in collections) {
    const rows = collections[name] as Record<string, { id?: unknown } | null>
    if (!rows || typeof rows !== 'object' || Array.isArray(rows))
      return `collections.${name}: expected an object`
    for (const id in rows) {
      const row = rows[id]
      if (!row || typeof row !== 'object' || row.id !== id) {
        return `collections.${name}.${id}: expected a row whose id is its key`
      }
    }
  }
  return undefined
}

export class DataFileError extends Error {
  override name = 'DataFileError'
}

/** Parses and checks a snapshot document; throws DataFileError with a message a person can act on. */
export function parseSnapshot(text: string, source: string): SnapshotDoc {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new DataFileError(
      `${source} is not valid JSON (${(error as Error).message}). It was left untouched; ` +
        'restore it from a backup or point --data at a new file.',
    )
  }
  return checkSnapshot(raw, source, false)
}

/** Checks a parsed document; `rowsChecked` when snapshot-lines.ts checked its rows already. */
function checkSnapshot(raw: unknown, source: string, rowsChecked: boolean): SnapshotDoc {
  const parsed = envelope.safeParse(raw)
  if (!parsed.success) {
    const first = parsed.error.issues[0]
    throw new DataFileError(
      `${source} is not a partner-sandbox data file (${first?.path.join('.') || 'root'}: ${first?.message}). ` +
        'It was left untouched.',
    )
  }
  const badRow = rowsChecked ? undefined : checkRows(parsed.data.collections)
  if (badRow) {
    throw new DataFileError(
      `${source} is not a partner-sandbox data file (${badRow}). It was left untouched.`,
    )
  }
  if (parsed.data.schema_version !== SCHEMA_VERSION) {
    throw new DataFileError(
      `${source} has schema version ${parsed.data.schema_version}, but this sandbox reads version ` +
        `${SCHEMA_VERSION}. It was left untouched; use a matching partner-sandbox version.`,
    )
  }
  // The parsed objects are used as they are (copying 100k rows into fresh ones cost ~10% of
  // the start-up), in the order of collectionNames, so every snapshot lists them alike.
  const collections = emptyCollections()
  for (const name of collectionNames) {
    const rows = parsed.data.collections[name] as CollectionsData[typeof name] | undefined
    if (rows) (collections as Record<string, unknown>)[name] = rows
  }
  return { ...parsed.data, format: SNAPSHOT_FORMAT, collections }
}

/**
 * Reads the snapshot a block of rows at a time when it has the layout this version writes
 * (snapshot-lines.ts), else (a file of an earlier version, or hand-edited) as one document
 * through lowdb. Writes go through snapshot-writer.ts, a slice at a time.
 */
export function openSnapshotFile(path: string) {
  const adapter = new DataFile<SnapshotDoc | null>(path, {
    parse: (text) => (text.trim() === '' ? null : parseSnapshot(text, path)),
    stringify: (doc) => JSON.stringify(doc),
  })
  const db = new Low<SnapshotDoc | null>(adapter, null)
  return {
    /** Reads the snapshot; null when the file does not exist yet or is empty. */
    async read(
      onCollection?: (name: string, rows: Record<string, unknown>) => void,
    ): Promise<SnapshotDoc | null> {
      const lines = existsSync(path) ? readSnapshotLines(path, onCollection) : undefined
      if (lines) {
        const collections = Object.fromEntries(lines.collections)
        return checkSnapshot({ ...lines.head, collections }, path, true)
      }
      await db.read()
      if (db.data && onCollection) {
        for (const [name, rows] of Object.entries(db.data.collections)) onCollection(name, rows)
      }
      return db.data
    },
    path,
  }
}
