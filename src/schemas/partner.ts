import { z } from '@hono/zod-openapi'
import { ANY_PORT_ORIGIN } from '../domain/allowed-origins.js'
import * as ex from './examples.js'
import { partnerStatus } from './fields.js'
import { singleLine } from './text.js'

/**
 * An http(s) URL: the scheme matters because the sandbox fetches webhook URLs. Control
 * characters are refused before the URL parser, which would keep a NUL and silently drop a
 * tab or line break.
 */
export const httpUrl = singleLine(z.string())
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).max(2048))
  .openapi({ format: 'uri', maxLength: 2048 })

/**
 * An allowed_origins entry: an http(s) URL, or an origin with any port (`http://localhost:*`,
 * the CSP form) for dev servers whose port changes.
 */
export const allowedOrigin = singleLine(z.string().max(2048))
  .refine((v) => ANY_PORT_ORIGIN.test(v) || httpUrl.safeParse(v).success, {
    error:
      'must be an http:// or https:// URL, or an origin with any port such as http://localhost:*',
    // A control character is the one thing to say about such a value.
    when: (payload) => payload.issues.length === 0,
  })
  .openapi({ example: 'http://localhost:*' })

const completionDefault = (field: string) =>
  z
    .string()
    .min(1)
    .max(128)
    .nullable()
    .optional()
    .openapi({
      description: `Server-configured ${field} of an onboarding completion that gives none; null: no default (omitting both ids is then a 400).`,
    })

/** Free-form settings; the keys the sandbox reads are typed. */
export const partnerConfig = z
  .looseObject({
    default_inquiry_id: completionDefault('inquiry_id'),
    default_product_id: completionDefault('product_id'),
  })
  .openapi('PartnerConfig', { example: { default_product_id: 'prod_sandbox_card' } })

/**
 * The partner row (store/records.ts) as shown: no secret hash or sandbox settings, its config
 * with the typed keys, and the row's stricter checks (scopes, slug, key prefix) not stated.
 */
export const Partner = z
  .object({
    id: z.uuid(),
    name: z.string(),
    display_name: z.string(),
    slug: z.string(),
    api_key: z.string().openapi({ example: 'pk_test_acme_sandbox_default_key' }),
    allowed_origins: z.array(z.string()),
    webhook_url: z.string().nullable(),
    scopes: z.array(z.string()).openapi({ example: ['users', 'cards', 'transactions'] }),
    rate_limit: z.number().int().openapi({ description: 'Requests per minute.', example: 1000 }),
    status: partnerStatus,
    contact_email: z.string(),
    contact_name: z.string(),
    config: partnerConfig,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Partner', {
    example: ex.partner,
    description: '`api_secret_hash` and `webhook_secret` are never returned.',
  })

export const PartnerEnvelope = z.object({ partner: Partner }).openapi('PartnerEnvelope')

export const PatchPartnerBody = z
  .object({
    display_name: singleLine(z.string().trim().min(1).max(200)).optional(),
    contact_email: z.email().max(254).optional(),
    contact_name: singleLine(z.string().trim().min(1).max(200)).optional(),
    allowed_origins: z.array(allowedOrigin).max(50).optional(),
    webhook_url: httpUrl.nullable().optional(),
    config: partnerConfig.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, {
    // Only when nothing else is wrong: `{ api_key }` is reported as api_key, not also as empty.
    when: (payload) => payload.issues.length === 0,
    message:
      'at least one field is required: display_name, contact_email, contact_name, allowed_origins, webhook_url or config',
  })
  .openapi('PatchPartner', {
    minProperties: 1,
    example: { display_name: 'Acme Fintech', webhook_url: 'https://acme.example/webhooks/cards' },
    description: 'All optional, at least one required. Key and secret are not editable.',
  })

export const RotatedCredentials = z
  .object({
    api_key: z.string().openapi({ example: 'pk_test_8Zq…' }),
    api_secret: z
      .string()
      .openapi({ description: 'Shown only in this response.', example: 'sk_test_Qm3…' }),
    message: z.string(),
  })
  .openapi('RotatedCredentials', {
    example: {
      api_key: 'pk_test_8ZqL2mXc7Rb3Vn9KwT4y',
      api_secret: 'sk_test_Qm3Wd8Lx2Zr6Tb1Nc9Hs5Jf0',
      message: 'New credentials issued. The previous pair no longer works.',
    },
  })

export const Usage = z
  .object({
    rate_limit: z.number().int(),
    status: z.string(),
    scopes: z.array(z.string()),
    last_24h: z.object({
      webhook_deliveries_succeeded: z.number().int(),
      webhook_deliveries_permanently_failed: z.number().int(),
    }),
    totals: z.object({ users: z.number().int() }),
  })
  .openapi('Usage', {
    example: {
      rate_limit: 1000,
      status: 'active',
      scopes: ['users', 'cards', 'transactions'],
      last_24h: { webhook_deliveries_succeeded: 42, webhook_deliveries_permanently_failed: 1 },
      totals: { users: 7 },
    },
  })
