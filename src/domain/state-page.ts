import type { IndexName, IndexRow } from '../state/indexes.js'
import type { StateReader } from '../state/seam.js'
import { unknownCursor } from './pagination.js'

/** How many rows a filtered page reads at a time while looking for rows `keep` passes. */
const CHUNK = 100

/**
 * A page of the rows under `key` of a time-ordered index (state/indexes.ts), newest first
 * (oldest first unless `newestFirst`), those `keep` passes, read through the seam: the cursor
 * is found through the index and the reading stops at the page's end, so a page costs the same
 * at 10 and at 10,000 rows (plus the rows `keep` skips). The rows are the domain's; the route
 * presents them.
 */
export async function statePage<I extends IndexName>(
  reader: StateReader,
  index: I,
  key: string,
  query: { limit: number; starting_after?: string },
  keep?: (row: IndexRow<I>) => boolean,
  newestFirst = true,
): Promise<{ data: IndexRow<I>[]; has_more: boolean }> {
  let after = query.starting_after
  if (after !== undefined && !(await reader.has(index, key, after))) throw unknownCursor()
  /**
   * Rows past `from`. Nothing past the client's cursor may mean it went between the check and
   * the read (its position is read with the rows): asked again, it is a 400, not the list's end.
   */
  const past = async (from: string | undefined, limit: number) => {
    const rows = await reader.range(index, key, { reverse: newestFirst, after: from, limit })
    const asked = from !== undefined && from === query.starting_after
    if (rows.length === 0 && asked && !(await reader.has(index, key, from))) throw unknownCursor()
    return rows
  }
  if (!keep) {
    // One row past the page says whether there is more.
    const rows = await past(after, query.limit + 1)
    return { data: rows.slice(0, query.limit), has_more: rows.length > query.limit }
  }
  const data: IndexRow<I>[] = []
  for (;;) {
    const rows = await past(after, CHUNK)
    for (const row of rows) {
      if (!keep(row)) continue
      if (data.length === query.limit) return { data, has_more: true }
      data.push(row)
    }
    const last = rows.at(-1)
    if (rows.length < CHUNK || !last) return { data, has_more: false }
    after = last.id
  }
}
