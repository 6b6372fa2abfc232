import { ApiError, type ErrorDetail } from '../errors.js'
import type { Random } from '../random.js'
import type { State, StateReader } from '../state/seam.js'
import {
  type CollectionName,
  type CollectionsData,
  collectionSchemas,
  emptyCollections,
  ephemeralCollections,
} from '../store/records.js'
import { SCHEMA_VERSION } from '../store/snapshot-file.js'
import { unredactSecrets } from './snapshot-secrets.js'

/** A snapshot document as uploaded: rows by collection and id, not yet checked. */
export interface UploadedSnapshot {
  schema_version: number
  collections: Record<string, Record<string, Record<string, unknown>>>
}

/** The 400 of a snapshot that cannot be restored; nothing was changed. */
export function invalidSnapshot(details: ErrorDetail[]): ApiError {
  return new ApiError(
    'validation_error',
    `The snapshot is invalid (${details.length} problem(s)); nothing was changed.`,
    { details: details.slice(0, 50) },
  )
}

/**
 * Checks the schema version and every row against its collection's schema (and that it is
 * stored under its own id), once redacted secrets took this sandbox's current values (read
 * from `current`). Answers the parsed rows and the problems found, by field path.
 */
export async function parseSnapshotRows(
  random: Random,
  current: StateReader,
  doc: UploadedSnapshot,
): Promise<{
  data: CollectionsData
  details: ErrorDetail[]
}> {
  if (doc.schema_version !== SCHEMA_VERSION) {
    throw new ApiError(
      'validation_error',
      `schema_version ${doc.schema_version} is not supported; this sandbox reads ${SCHEMA_VERSION}.`,
      {
        details: [
          { field: 'schema_version', message: `must be ${SCHEMA_VERSION}`, location: 'body' },
        ],
      },
    )
  }
  await unredactSecrets(random, current, doc.collections)
  const details: ErrorDetail[] = []
  const data = emptyCollections()
  for (const [name, rows] of Object.entries(doc.collections)) {
    const schema = collectionSchemas[name as CollectionName]
    // An ephemeral collection is never in a snapshot: its rows cannot be restored either.
    if (!schema || ephemeralCollections.includes(name as CollectionName)) {
      details.push({
        field: `collections.${name}`,
        message: 'is not a known collection',
        location: 'body',
      })
      continue
    }
    for (const [id, row] of Object.entries(rows)) {
      const parsed = schema.safeParse(row)
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          details.push({
            field: ['collections', name, id, ...issue.path].join('.'),
            message: issue.message,
            location: 'body',
          })
        }
      } else if (parsed.data.id !== id) {
        details.push({
          field: `collections.${name}.${id}.id`,
          message: 'must equal the key it is stored under',
          location: 'body',
        })
      } else {
        ;(data[name as CollectionName] as Record<string, unknown>)[id] = parsed.data
      }
    }
  }
  return { data, details }
}

/**
 * Validates every row of an uploaded snapshot, then replaces the whole state at once (the
 * ephemeral collections come back empty, as after a reset).
 */
export async function restoreSnapshot(
  ctx: { state: State; random: Random },
  doc: UploadedSnapshot,
): Promise<void> {
  const { data, details } = await parseSnapshotRows(ctx.random, ctx.state, doc)
  if (details.length > 0) throw invalidSnapshot(details)
  await ctx.state.replaceAll(data)
}
