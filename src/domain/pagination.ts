import { z } from '@hono/zod-openapi'
import { validationError } from '../errors.js'
import { limitParam } from '../schemas/limit.js'

/** `?limit=` 1–100 (default 20) and `?starting_after=<id>` (DESIGN.md list rules). */
export const ListQuery = z.object({
  limit: limitParam(100, 20),
  starting_after: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: 'Id of the last item of the previous page.' }),
})

/** Pages through `items` (already in display order, newest first), shown through `view`. */
export function paginate<T extends { id: string }, V>(
  items: T[],
  query: { limit: number; starting_after?: string },
  view: (item: T) => V,
): { data: V[]; has_more: boolean } {
  let start = 0
  if (query.starting_after) {
    const index = items.findIndex((item) => item.id === query.starting_after)
    if (index < 0) throw unknownCursor()
    start = index + 1
  }
  const data = items.slice(start, start + query.limit).map(view)
  return { data, has_more: start + query.limit < items.length }
}

/** A cursor may name a row retention removed since the previous page was read. */
export const unknownCursor = () =>
  validationError(
    'starting_after',
    'is not the id of an item in this list (history older than its retention window is removed: see docs/retention.md)',
    'query',
  )

/**
 * Pages through `rows` as they come (already newest first, e.g. a reverse store scan),
 * reading only up to the page's end: a page costs the same however long the history is.
 */
export function paginateInOrder<T extends { id: string }, V>(
  rows: Iterable<T>,
  query: { limit: number; starting_after?: string },
  view: (item: T) => V,
): { data: V[]; has_more: boolean } {
  const data: V[] = []
  let started = !query.starting_after
  for (const row of rows) {
    if (!started) {
      started = row.id === query.starting_after
      continue
    }
    if (data.length === query.limit) return { data, has_more: true }
    data.push(view(row))
  }
  if (!started) throw unknownCursor()
  return { data, has_more: false }
}

/**
 * Newest first. Rows created in the same millisecond (a frozen clock makes that common)
 * keep their creation order, newest first: store lookups list rows in the order they were
 * created, so reversing before a stable sort by time puts later-created rows first.
 */
export function newestFirst<T extends { created_at: string }>(rows: T[]): T[] {
  const out = rows.slice().reverse()
  // Rows are nearly always created in time order, so the reversed list is already newest
  // first: check that in one pass and sort only when it is not (a clock moved back, a
  // restored snapshot). ISO timestamps of one format order as plain strings, without the
  // collation cost of localeCompare; the sort is stable, so ties keep creation order.
  for (let i = 1; i < out.length; i++) {
    if ((out[i] as T).created_at > (out[i - 1] as T).created_at)
      return out.sort((a, b) =>
        a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0,
      )
  }
  return out
}

/** The OpenAPI/zod shape of a page of `item`. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), has_more: z.boolean().openapi({ example: false }) })
