import { z } from 'zod'
import { parseDuration } from './clock.js'
import {
  providerWord,
  SPEC_PROVIDER_WORD,
  SPEC_SIGNATURE_HEADER,
  signatureHeaderName,
} from './domain/production-names.js'
import type { Scenario } from './scenarios/schema.js'

/** Options of createSandbox/startSandbox, the CLI flags and the environment variables. */
export const logLevels = ['silent', 'error', 'warn', 'info', 'debug'] as const
export const logFormats = ['pretty', 'json'] as const

/** A duration option: `30m`, `24h`, or milliseconds. Output: milliseconds. */
function duration(fallback: string) {
  return z
    .union([z.string(), z.number().int().positive()])
    .default(fallback)
    .transform((value, ctx) => {
      try {
        return parseDuration(value)
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message })
        return z.NEVER
      }
    })
}
/** A number, or its text (from a flag or an environment variable): the input type says so. */
const numeric = () => z.coerce.number<number | string>()
const completionDefault = z.union([
  z.literal('off'),
  z.string().regex(/^[\w.:-]{1,128}$/, 'must be an id (letters, digits, _ . : -) or off'),
])

/** A switch: a boolean (programmatic use), or the words a shell or a compose file would use. */
const switchOption = () =>
  z
    .union([
      z.boolean(),
      z
        .enum(['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off'])
        .transform((v) => ['1', 'true', 'yes', 'on'].includes(v)),
    ])
    .default(false)

/** The refusal of both `data` and `database`: the CLI words it with the flags as typed. */
export const dataAndDatabase = 'give either a data file (data) or a database (database), not both'

export const sandboxOptionsSchema = z
  .object({
    port: numeric().int().min(0).max(65535).default(4010),
    host: z.string().min(1).default('127.0.0.1'),
    /** JSON data file; state is kept in memory when absent. */
    data: z.string().min(1).optional(),
    /**
     * PostgreSQL URL (`postgres://user:password@host:5432/db`, optional `?schema=`): state lives
     * in that database, shared by every sandbox started with the same URL. Excludes `data`.
     */
    database: z
      .string()
      .regex(/^postgres(ql)?:\/\/./, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    /** Fixtures file or folder to seed a new store and `/_sandbox/reset` from. */
    fixtures: z.string().min(1).optional(),
    /** Scenario name (bundled) or file path, or a scenario object (programmatic use). */
    scenario: z
      .union([z.string().min(1), z.custom<Scenario>((v) => typeof v === 'object' && v !== null)])
      .default('default'),
    /** Makes every generated id and value reproducible. */
    seed: numeric().int().nonnegative().optional(),
    /** Overrides every partner's rate_limit (requests per minute), or turns limiting off. */
    rateLimit: z.union([z.literal('off'), numeric().int().positive()]).optional(),
    logLevel: z.enum(logLevels).default('info'),
    /** pretty: readable lines (coloured on a TTY); json: one JSON object per line for collectors. */
    logFormat: z.enum(logFormats).default('pretty'),
    /** Where log lines go (programmatic use, e.g. into a test reporter); stderr when absent. */
    onLog: z
      .custom<(line: string) => void>((v) => typeof v === 'function', 'must be a function')
      .optional(),
    /** Guards `/_sandbox/*` when set. */
    adminToken: z.string().min(1).optional(),
    /** Largest JSON request body, bytes. */
    bodyLimit: numeric()
      .int()
      .positive()
      .default(1024 * 1024),
    /**
     * Largest snapshot restore (`POST /_sandbox/snapshot` and a partner's), bytes: a whole
     * state is larger than any API body, but it is still read into memory, so it has a cap.
     */
    snapshotLimit: numeric()
      .int()
      .positive()
      .default(16 * 1024 * 1024),
    /** Time a client has to send a request body once its headers arrived. Output: ms. */
    bodyTimeout: duration('30s'),
    /** Time a client has to send a request's headers. Output: ms. */
    headersTimeout: duration('10s'),
    /** Public base URL used in links the sandbox returns (e.g. behind Docker port mapping). */
    publicUrl: z.url().optional(),
    /** Session lifetime: a duration (`30m`, `24h`) or milliseconds. Output: milliseconds. */
    sessionTtl: duration('24h'),
    /**
     * Most webhook endpoints a partner may have, its primary one included (Stripe allows 16):
     * every event goes to each, so the cap bounds what one event costs.
     */
    webhookLimit: numeric().int().positive().max(1000).default(16),
    /** Largest profile picture, bytes; larger uploads get 413. */
    pictureLimit: numeric()
      .int()
      .positive()
      .default(2 * 1024 * 1024),
    /**
     * Server-configured defaults of an onboarding completion's `inquiry_id` / `product_id`
     * (spec section 4); `off` configures none. A scenario or a partner's `config` overrides them.
     */
    defaultInquiryId: completionDefault.default('inq_sandbox_default'),
    defaultProductId: completionDefault.default('prod_sandbox_card'),
    /**
     * Production names in place of the spec's placeholders (domain/production-names.ts): the
     * webhook signature header's name, and the provider's word in field names
     * (`<word>_consumer_id`). A scenario or a partner's own names override them.
     */
    signatureHeader: signatureHeaderName.default(SPEC_SIGNATURE_HEADER),
    providerName: providerWord.default(SPEC_PROVIDER_WORD),
    /** fsync every journal write (survives power loss as well as a process crash). */
    fsync: switchOption(),
    /**
     * Believe `X-Forwarded-Host`, `-Proto` and `-For`: only a proxy in front of the sandbox
     * should set them, and any client can send them, so they count only when a setting says
     * such a proxy stands there (Express's and Fastify's `trust proxy`).
     */
    trustProxy: switchOption(),
  })
  .refine((options) => !(options.data && options.database), {
    path: ['database'],
    message: dataAndDatabase,
  })

export type SandboxConfig = z.output<typeof sandboxOptionsSchema>

/** The environment variables the CLI reads, each matching a flag. */
export const envNames: Record<string, keyof SandboxConfig> = {
  PORT: 'port',
  SANDBOX_PORT: 'port',
  SANDBOX_HOST: 'host',
  SANDBOX_DATA: 'data',
  SANDBOX_DATABASE: 'database',
  SANDBOX_DATABASE_URL: 'database',
  SANDBOX_FIXTURES: 'fixtures',
  SANDBOX_SCENARIO: 'scenario',
  SANDBOX_SEED: 'seed',
  SANDBOX_RATE_LIMIT: 'rateLimit',
  SANDBOX_LOG_LEVEL: 'logLevel',
  SANDBOX_LOG_FORMAT: 'logFormat',
  SANDBOX_ADMIN_TOKEN: 'adminToken',
  SANDBOX_PUBLIC_URL: 'publicUrl',
  SANDBOX_SESSION_TTL: 'sessionTtl',
  SANDBOX_PICTURE_LIMIT: 'pictureLimit',
  SANDBOX_WEBHOOK_LIMIT: 'webhookLimit',
  SANDBOX_FSYNC: 'fsync',
  SANDBOX_TRUST_PROXY: 'trustProxy',
  SANDBOX_BODY_LIMIT: 'bodyLimit',
  SANDBOX_SNAPSHOT_LIMIT: 'snapshotLimit',
  SANDBOX_BODY_TIMEOUT: 'bodyTimeout',
  SANDBOX_HEADERS_TIMEOUT: 'headersTimeout',
  SANDBOX_DEFAULT_INQUIRY_ID: 'defaultInquiryId',
  SANDBOX_DEFAULT_PRODUCT_ID: 'defaultProductId',
  SANDBOX_SIGNATURE_HEADER: 'signatureHeader',
  SANDBOX_PROVIDER_NAME: 'providerName',
}
