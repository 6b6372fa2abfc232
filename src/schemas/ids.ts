import { z } from '@hono/zod-openapi'
import { ids } from './examples.js'

/**
 * Ids in paths, each documented with the pattern its own check accepts (read from zod's JSON
 * Schema of that check, so the two cannot differ) and, on the parameter, an example of a real
 * id, the value a generator or Dredd puts in the URL.
 */
export function documentedParam<T extends z.ZodType>(
  schema: T,
  example: string,
  description?: string,
) {
  return schema.openapi({ pattern: patternOf(schema), description, param: { example } })
}

/** The pattern zod itself states for a check (an enum's values as alternatives). */
function patternOf(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { pattern?: string; enum?: string[] }
  if (json.pattern) return json.pattern
  if (json.enum)
    return `^(?:${json.enum.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`
  throw new Error(`a path parameter needs a check with a pattern: ${JSON.stringify(json)}`)
}

/** What a UUID check accepts, for an id documented as one but checked more loosely. */
export const UUID_PATTERN = patternOf(z.uuid())

/** An id with the sandbox's prefix (DESIGN.md: `wh_`, `dlv_`…), as the routes check it. */
const prefixed = (prefix: string, noun: string, example: string) =>
  documentedParam(z.string().startsWith(prefix, `must be ${noun} (${prefix}…)`), example)

/** A UUID id (partner, user, onboarding). */
const uuid = (noun: string, example: string) =>
  documentedParam(z.uuid({ error: `must be ${noun} (uuid)` }), example)

export const WebhookId = prefixed('wh_', 'a webhook id', ids.webhook)
export const DeliveryId = prefixed('dlv_', 'a delivery id', ids.delivery)
export const TransactionId = prefixed('txn_', 'a transaction id', ids.purchase)
export const DepositId = prefixed('dep_', 'a deposit id', ids.deposit)
export const DisputeId = prefixed('dsp_', 'a dispute id', ids.dispute)
export const BankAccountId = prefixed('bank_', 'a bank account id', ids.bank)
export const RuleId = prefixed('rul_', 'a rule id', ids.rule)

export const PartnerId = uuid('a partner id', ids.partner)
export const UserId = uuid('a user id', ids.user)
export const OnboardingId = uuid('an onboarding id', ids.onboarding)
