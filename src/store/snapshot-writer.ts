import { open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { CollectionName, CollectionsData } from './records.js'
import { FILE_MODE, type SnapshotDoc } from './snapshot-file.js'

/**
 * Writes a snapshot without ever holding the event loop for long: the rows are serialised a
 * slice at a time (a few milliseconds each) and written to a temporary file between slices,
 * which is renamed over the data file once complete. One `JSON.stringify` of 100k users held
 * the loop for about a second and built a 70 MB string; this holds it for at most a slice and
 * never keeps more than one chunk of text.
 *
 * The layout (snapshot-lines.ts) is one JSON document, as `JSON.stringify` would write it but
 * with a line break before each collection, each row and each closing brace, so a reader can
 * parse it a block of rows at a time instead of as one string of the whole file.
 *
 * What is written: the ids each collection held when `captureSnapshot` ran, each with the row
 * it holds when its slice is serialised. A row replaced or removed meanwhile was replaced by a
 * journal entry after `seq`, which a replay applies again; replaying a put or a delete twice
 * ends in the same state, so the file plus the journal after `seq` is always exact.
 */

const SLICE_MS = 4
const CHUNK_CHARS = 512 * 1024

export interface SnapshotCapture {
  head: Omit<SnapshotDoc, 'collections'>
  collections: { name: CollectionName; rows: Record<string, unknown>; ids: string[] }[]
}

/** The synchronous part: the header and every collection's ids (not their rows) at this instant. */
export function captureSnapshot(
  head: Omit<SnapshotDoc, 'collections'>,
  data: CollectionsData,
): SnapshotCapture {
  return {
    head,
    collections: (Object.keys(data) as CollectionName[]).map((name) => ({
      name,
      rows: data[name] as Record<string, unknown>,
      ids: Object.keys(data[name]),
    })),
  }
}

/**
 * The text of `JSON.stringify(doc)` of the captured state with line breaks between rows (see
 * snapshot-lines.ts); resolves once renamed into place. `beforeRename` runs once the temporary
 * file is complete: a throw there leaves the data file as it was. Any failure (a full disk)
 * removes the temporary file and leaves the data file as it was: the old snapshot stays valid.
 */
export async function writeSnapshot(
  path: string,
  capture: SnapshotCapture,
  beforeRename?: () => Promise<void>,
): Promise<number> {
  const temp = join(dirname(path), `.${basename(path)}.tmp`)
  // Owner only from its first byte (and if a crash left one behind with another mode).
  const file = await open(temp, 'w', FILE_MODE)
  let bytes = 0
  let chunk = `${JSON.stringify(capture.head).slice(0, -1)},"collections":{\n`
  const flush = async () => {
    const buffer = Buffer.from(chunk)
    chunk = ''
    for (let at = 0; at < buffer.length; ) at += (await file.write(buffer, at)).bytesWritten
    bytes += buffer.length
  }
  try {
    await file.chmod(FILE_MODE)
    let sliceStart = performance.now()
    for (const [c, { name, rows, ids }] of capture.collections.entries()) {
      chunk += `${c > 0 ? ',\n' : ''}${JSON.stringify(name)}:{`
      let first = true
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i] as string
        const row = rows[id]
        if (row === undefined) continue
        chunk += `${first ? '\n' : ',\n'}${JSON.stringify(id)}:${JSON.stringify(row)}`
        first = false
        const due = chunk.length > CHUNK_CHARS || performance.now() - sliceStart > SLICE_MS
        if ((i & 63) === 63 && due) {
          await flush()
          sliceStart = performance.now()
        }
      }
      chunk += '\n}'
    }
    chunk += '}}\n'
    await flush()
    await file.close()
    await beforeRename?.()
    await rename(temp, path)
  } catch (error) {
    await file.close().catch(() => {})
    await rm(temp, { force: true }).catch(() => {})
    throw error
  }
  return bytes
}
