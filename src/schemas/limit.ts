import { z } from '@hono/zod-openapi'

/**
 * `?limit=` as a plain decimal integer: digits only. `Number()` would also take `0x10`, `1e2`,
 * ` 5` or `5.0`, so a typo could pass for another page size; each is a 400 naming `limit`.
 * In the OpenAPI document it stays an integer with its bounds, as clients send it.
 */
export function limitParam(max: number, fallback: number) {
  const range = `must be between 1 and ${max}`
  return z
    .string()
    .regex(/^\d+$/, `must be a whole number written in decimal digits, such as ${fallback}`)
    .transform(Number)
    .pipe(z.number().min(1, range).max(max, range))
    .optional()
    .transform((n) => n ?? fallback)
    .openapi({
      type: 'integer',
      minimum: 1,
      maximum: max,
      default: fallback,
      example: fallback,
      description: `Page size, 1–${max} (default ${fallback}).`,
    })
}

/**
 * The query of a control-plane list read oldest first, a page at a time (the bounds of the
 * control plane's other lists): `limit` 1–500, default 50, and `starting_after` an id.
 */
export function controlPageQuery(of: string, id: z.ZodString | z.ZodUUID = z.string().min(1)) {
  return {
    description: `Oldest first, \`limit\` at a time (1–500, default 50); \`starting_after\` a ${of} id to read the next page.`,
    request: {
      query: z.object({
        limit: limitParam(500, 50),
        starting_after: id
          .optional()
          .openapi({ description: `Id of the last ${of} of the previous page.` }),
      }),
    },
  }
}
