import { z } from 'zod'

/**
 * Fault injection, from a scenario or the control plane: added latency (fixed or a range),
 * error answers (at a rate, or on the next N calls) and dropped connections, each for the
 * routes a pattern matches (`METHOD /path/with/*`, method optional).
 */
export const faultRule = z
  .object({
    route: z
      .string()
      .regex(
        /^((GET|POST|PUT|PATCH|DELETE)\s+)?\/\S*$/,
        'a route pattern such as "POST /api/v1/partner/cards/*" or "/api/v1/*"',
      )
      .describe('Which requests: an optional method, then a path with * wildcards.'),
    latency_ms: z
      .union([
        z.number().int().min(0).max(30_000),
        z.tuple([z.number().int().min(0), z.number().int().max(30_000)]),
      ])
      .optional()
      .describe('Added delay: fixed, or [min, max].'),
    error_status: z
      .union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)])
      .optional()
      .describe('Answer with this error instead of handling the request.'),
    drop_connection: z.boolean().optional().describe('Close the connection without an answer.'),
    rate: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Share of matching requests affected (default all).'),
    next: z.number().int().positive().optional().describe('Only the next N matching requests.'),
  })
  .strict()
  .refine((r) => r.latency_ms !== undefined || r.error_status !== undefined || r.drop_connection, {
    message: 'give latency_ms, error_status or drop_connection',
  })
  .refine((r) => !(r.error_status !== undefined && r.drop_connection), {
    message: 'give error_status or drop_connection, not both',
  })
export type FaultRule = z.infer<typeof faultRule>

export function routeMatches(pattern: string, method: string, path: string): boolean {
  const [first, second] = pattern.trim().split(/\s+/)
  const wantMethod = second ? first : undefined
  const pathPattern = (second ?? first) as string
  if (wantMethod && wantMethod !== method) return false
  const regex = new RegExp(
    `^${pathPattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )
  return regex.test(path)
}
