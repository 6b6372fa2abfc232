import { z } from 'zod'

/** The methods the partner API takes; an override names one. */
export const overrideMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

/** Which requests an override answers (see domain/override-match.ts for how each is compared). */
export const overrideMatch = z
  .object({
    method: overrideMethod,
    path: z
      .string()
      .regex(
        /^\/api\/v1\/[^?#\s*]*$/,
        'must be a partner API path as sent (/api/v1/partner/auth/register) or a template with {name} segments, without a query string (match.query takes its parameters)',
      ),
    query: z.record(z.string(), z.string()).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
  })
  .strict()

/** What an override answers with. */
export const overrideResponse = z
  .object({
    status: z.number().int().min(200).max(599),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
    delay_ms: z.number().int().min(0).max(30_000).optional(),
  })
  .strict()

/**
 * A response override (POST /_sandbox/partners/{id}/overrides, or /_sandbox/overrides for
 * every partner): the next matching partner API requests are answered with `respond`.
 */
export const overrideRow = z.object({
  id: z.string().startsWith('ovr_'),
  /** The partner whose requests it answers; null: every partner's (a global override). */
  partner_id: z.uuid().nullable(),
  match: overrideMatch,
  respond: overrideResponse,
  /** Answers left before it goes; null: until removed. */
  remaining: z.number().int().positive().nullable(),
  priority: z.number().int(),
  off_contract: z.boolean(),
  /** Why the answer is off the API's contract (the override allowed it), or null: on it. */
  contract_problem: z.string().nullable(),
  /** The operation of the OpenAPI document it stands in for, e.g. `registerUser`. */
  operation_id: z.string().nullable(),
  /** Creation order: ties of priority go to the newest. */
  seq: z.number().int().nonnegative(),
  created_at: z.string(),
})
export type OverrideRow = z.infer<typeof overrideRow>
