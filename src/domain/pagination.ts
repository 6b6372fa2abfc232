import { z } from '@hono/zod-openapi'
import { validationError } from '../errors.js'

/** `?limit=` 1–100 (default 20) and `?starting_after=<id>` (DESIGN.md list rules). */
export const ListQuery = z.object({
  limit: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be between 1 and 100')
    .max(100, 'must be between 1 and 100')
    .default(20)
    .openapi({ example: 20 }),
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
    if (index < 0)
      throw validationError('starting_after', 'is not the id of an item in this list', 'query')
    start = index + 1
  }
  const data = items.slice(start, start + query.limit).map(view)
  return { data, has_more: start + query.limit < items.length }
}

/**
 * Newest first. Rows created in the same millisecond (a frozen clock makes that common)
 * keep their creation order, newest first: store lookups list rows in the order they were
 * created, so reversing before a stable sort by time puts later-created rows first.
 */
export function newestFirst<T extends { created_at: string }>(rows: T[]): T[] {
  return [...rows].reverse().sort((a, b) => b.created_at.localeCompare(a.created_at))
}

/** The OpenAPI/zod shape of a page of `item`. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), has_more: z.boolean() })
