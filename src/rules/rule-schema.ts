import { z } from 'zod'

/**
 * One rule model for programmed answers (as MSW's handlers with `once` and WireMock's stubs):
 * a match (which partner API requests), an effect (what happens to them) and a count (how
 * many). Made through the control plane (for one partner or every partner) or carried by a
 * scenario (`rules`). http/rules.ts applies them; domain/rules.ts keeps them.
 */

/** The methods the partner API takes. */
export const ruleMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

/** Which requests a rule meets (domain/request-match.ts says how each field is compared). */
export const ruleMatch = z
  .object({
    method: ruleMethod.optional().describe('The method; any when left out.'),
    path: z
      .string()
      .regex(
        /^\/api\/v1\/[^?#\s]*$/,
        'must be a partner API path as sent (/api/v1/partner/auth/register), a template with {name} segments or * runs, without a query string (match.query takes its parameters)',
      )
      .describe('The path: as sent, with {name} segments (one segment) or * (any run).'),
    query: z.record(z.string(), z.string()).optional().describe('Query parameters it must have.'),
    headers: z.record(z.string(), z.string()).optional().describe('Headers it must have.'),
    body: z.unknown().optional().describe('A JSON subset the body must contain.'),
  })
  .strict()

/** An answer in place of the route's: checked against the API's contract when made. */
export const ruleAnswer = z
  .object({
    status: z.number().int().min(200).max(599),
    headers: z.record(z.string(), z.string()).optional(),
    body: z
      .unknown()
      .optional()
      .describe(
        "The body. Left out on an error status: the sandbox's error envelope for that status.",
      ),
  })
  .strict()

const code = z.string().regex(/^\d{6}$/, 'a code is 6 digits')

/** The scenario decisions a rule can take for the requests it meets. */
export const ruleDecisions = z
  .object({
    purchase_decline: z
      .string()
      .min(1)
      .optional()
      .describe('Decline a simulated purchase with this reason (insufficient_funds…).'),
    kyc: z
      .enum(['pass', 'kyc_fail', 'underwriting_decline', 'manual_review'])
      .optional()
      .describe('How an onboarding submitted by the request ends.'),
    deposit_failure: z
      .string()
      .min(1)
      .optional()
      .describe('Fail a deposit made by the request with this reason (account_closed…).'),
    otp_code: code.optional().describe('The one-time code a login or reset request sends.'),
  })
  .strict()
  .refine((d) => Object.keys(d).length > 0, 'give at least one decision')

export const latency = z
  .union([
    z.number().int().min(0).max(30_000),
    z.tuple([z.number().int().min(0), z.number().int().max(30_000)]),
  ])
  .describe('Added delay in ms: fixed, or [min, max].')

/** The effect fields of a rule: an answer, a dropped connection or decisions; and a delay. */
const effectShape = {
  respond: ruleAnswer.optional().describe('Answer with this status, headers and body.'),
  drop_connection: z.literal(true).optional().describe('Close the connection without an answer.'),
  decide: ruleDecisions.optional().describe('Take these scenario decisions for the request.'),
  latency_ms: latency.optional(),
}

const countShape = {
  times: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Meet this many requests, then go; default: until removed.'),
  once: z.literal(true).optional().describe('Same as times: 1 (MSW\u2019s { once: true }).'),
  rate: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('Share of matching requests it meets (default all).'),
}

type EffectFields = {
  respond?: unknown
  drop_connection?: true
  decide?: unknown
  latency_ms?: unknown
  times?: number
  once?: true
}

/** The checks a rule's fields make together, each on the field it names. */
export const checked = <T extends z.ZodObject>(schema: T) =>
  schema.superRefine((value, ctx) => {
    const r = value as EffectFields
    const kinds = ['respond', 'drop_connection', 'decide'].filter(
      (k) => r[k as keyof EffectFields] !== undefined,
    )
    if (kinds.length === 0 && r.latency_ms === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'give an effect: respond, drop_connection, decide or latency_ms',
      })
    if (kinds.length > 1)
      ctx.addIssue({
        code: 'custom',
        path: [kinds[1] as string],
        message: `give one of respond, drop_connection, decide, not ${kinds.join(' and ')}`,
      })
    if (r.once && r.times !== undefined && r.times !== 1)
      ctx.addIssue({ code: 'custom', path: ['once'], message: 'once means times: 1' })
  })

const offContract = z
  .boolean()
  .optional()
  .describe(
    "Serve an answer the API's contract does not allow (no such operation, an undocumented status, a body its schema refuses); the journal marks such answers.",
  )

/** A rule as a scenario carries it (its count is kept per partner). */
export const scenarioRule = checked(
  z.object({ match: ruleMatch, ...effectShape, ...countShape, off_contract: offContract }).strict(),
)
export type ScenarioRule = z.infer<typeof scenarioRule>

/** A rule as the control plane takes it. */
export const ruleInputShape = {
  match: ruleMatch,
  ...effectShape,
  ...countShape,
  priority: z
    .number()
    .int()
    .optional()
    .describe('Higher first (default 0); among equals, the newest first.'),
  off_contract: offContract,
}
export const ruleInput = checked(z.object(ruleInputShape).strict())
export type RuleInput = z.infer<typeof ruleInput>
export type RuleEffect = Pick<RuleInput, 'respond' | 'drop_connection' | 'decide' | 'latency_ms'>

/**
 * A kept rule: made by the control plane (POST /_sandbox/partners/{id}/rules, or
 * /_sandbox/rules for every partner), or the count of a scenario's rule for one partner
 * (`scenario` names it; made at its first use).
 */
export const ruleRow = z.object({
  id: z.string().startsWith('rul_'),
  /** The partner whose requests it meets; null: every partner's (a global rule). */
  partner_id: z.uuid().nullable(),
  match: ruleMatch,
  respond: ruleAnswer.nullable(),
  drop_connection: z.boolean(),
  decide: ruleDecisions.nullable(),
  latency_ms: latency.nullable(),
  /** How many requests it meets in all; null: until removed. */
  times: z.number().int().positive().nullable(),
  /** How many it has met (counted atomically: two replicas never both take the last). */
  used: z.number().int().nonnegative(),
  rate: z.number().min(0).max(1).nullable(),
  priority: z.number().int(),
  off_contract: z.boolean(),
  /** Why its answer is off the API's contract (the rule allowed it), or null: on it. */
  contract_problem: z.string().nullable(),
  /** The operation of the OpenAPI document its match names, e.g. `registerUser`. */
  operation_id: z.string().nullable(),
  /** `<scenario> rules[<n>]` for the count of a scenario's rule; null for a made rule. */
  scenario: z.string().nullable(),
  /** Creation order: ties of priority go to the newest. */
  seq: z.number().int().nonnegative(),
  created_at: z.string(),
})
export type RuleRow = z.infer<typeof ruleRow>

/** Whether a rule has requests left to meet. */
export const live = (row: Pick<RuleRow, 'times' | 'used'>) =>
  row.times === null || row.used < row.times
