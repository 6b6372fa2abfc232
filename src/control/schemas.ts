import { z } from '@hono/zod-openapi'
import { providerWord, signatureHeaderName } from '../domain/production-names.js'
import * as ex from '../schemas/examples.js'
import { partnerScope, partnerStatus, SLUG_PATTERN } from '../schemas/fields.js'
import { PartnerId } from '../schemas/ids.js'
import { allowedOrigin, httpUrl, Partner } from '../schemas/partner.js'
import { singleLine } from '../schemas/text.js'

/** A partner's own names, as the control plane sets them (null: back to the sandbox's). */
export const PartnerNames = z
  .object({
    signature_header: signatureHeaderName.nullable().optional().openapi({
      description:
        "The webhook signature header's name (the spec's placeholder: X-Service-Signature).",
      example: 'X-Acme-Signature',
    }),
    provider: providerWord.nullable().optional().openapi({
      description:
        "The provider's word in field names: `<word>_consumer_id` (the spec's placeholder: provider).",
      example: 'lithic',
    }),
  })
  .strict()
  .openapi('SandboxPartnerNames')

export const Health = z
  .object({
    status: z.enum(['ok', 'degraded']).openapi({
      description: '`degraded` (with a 503) while writes are refused: `problems` says why.',
    }),
    version: z.string(),
    now: z.string().openapi({ description: 'Sandbox clock time.' }),
    uptime_s: z.number(),
    storage: z.enum(['memory', 'file', 'postgres']).openapi({
      description:
        'Where the state lives: memory, a data file (--data), or PostgreSQL (--database).',
    }),
    scenario: z.string(),
    partners: z.number().int().nullable().openapi({
      description: 'How many partners there are; null while the database is out of reach.',
    }),
    problems: z.array(z.string()).openapi({
      description:
        'What needs a person: e.g. partners whose scenario is not loaded (GET /_sandbox/partners names them). Empty when all is well.',
    }),
  })
  .openapi('SandboxHealth', {
    example: {
      status: 'ok',
      version: '0.1.0',
      now: ex.times.purchased,
      uptime_s: 3600,
      storage: 'memory',
      scenario: 'default',
      partners: 2,
      problems: [],
    },
  })

const autoComplete = z.boolean().openapi({
  description:
    "Sandbox setting, off by default: when an onboarding's hosted flow ends, the sandbox completes it itself (as POST /api/v1/partner/cards/onboarding/{id}/complete would, with the same events and webhooks), so a page opened in a plain tab ends on the real outcome. Off: the partner's backend completes it (the spec's flow).",
})

export const CreatePartnerBody = z
  .object({
    name: singleLine(z.string().trim().min(1).max(200)),
    display_name: singleLine(z.string().trim().min(1).max(200)).optional(),
    slug: z
      .string()
      .regex(SLUG_PATTERN, 'lowercase letters, digits and single dashes')
      .max(64)
      .optional(),
    contact_email: z.email().optional(),
    contact_name: singleLine(z.string().trim().min(1).max(200)).optional(),
    allowed_origins: z.array(allowedOrigin).max(50).optional(),
    webhook_url: httpUrl.nullable().optional(),
    scopes: z.array(partnerScope).optional(),
    rate_limit: z.number().int().positive().max(1_000_000).optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    scenario: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .openapi({ description: 'Bundled scenario name.' }),
    auto_complete: autoComplete.optional(),
    names: PartnerNames.optional(),
  })
  .strict()
  .openapi('CreateSandboxPartner', {
    example: {
      name: 'Worker 3',
      allowed_origins: ['http://localhost:3000'],
      webhook_url: 'http://127.0.0.1:4010/_sandbox/sink/worker-3',
      scenario: 'happy-path',
    },
  })

export const CreatedPartner = z
  .object({
    partner: Partner,
    api_key: z.string(),
    api_secret: z.string().openapi({ description: 'Shown only in this response.' }),
    webhook_secret: z.string().optional().openapi({
      description:
        'Signing secret of the primary endpoint, when webhook_url was given. Shown only here.',
    }),
    scenario: z.string(),
  })
  .openapi('CreatedSandboxPartner', {
    example: {
      partner: { ...ex.partner, name: 'Worker 3', slug: 'worker-3' },
      api_key: 'pk_test_w3Lm8Qx2Rt5Zb9Kc',
      api_secret: 'sk_test_Hd4Np7Ws1Xy6Vq3Jf0Mg',
      webhook_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      scenario: 'happy-path',
    },
  })

export const SandboxPartner = Partner.extend({
  scenario: z.string().nullable(),
  auto_complete: autoComplete,
  names: z.object({ signature_header: z.string(), provider: z.string() }).openapi({
    description:
      "The production names this partner's traffic carries: its own, else the sandbox's (the spec's placeholders by default).",
  }),
  scenario_error: z.string().nullable().openapi({
    description:
      "Set when the partner's scenario is not loaded (its API requests get 503 until it is).",
  }),
}).openapi('SandboxPartner', {
  example: {
    ...ex.partner,
    scenario: null,
    auto_complete: false,
    names: { signature_header: 'X-Service-Signature', provider: 'provider' },
    scenario_error: null,
  },
})

export const PatchSandboxPartner = z
  .object({
    status: partnerStatus.optional(),
    scenario: z.string().min(1).nullable().optional(),
    rate_limit: z.number().int().positive().max(1_000_000).optional(),
    auto_complete: autoComplete.optional(),
    names: PartnerNames.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, {
    message: 'give at least one of status, scenario, rate_limit, auto_complete, names',
  })
  .openapi('PatchSandboxPartner', { minProperties: 1, example: { status: 'suspended' } })

export const PartnerIdParam = z.object({ id: PartnerId })

export const SnapshotDoc = z
  .object({
    format: z.literal('partner-sandbox'),
    schema_version: z.number().int(),
    seq: z.number().int().nonnegative().optional(),
    saved_at: z.string().optional(),
    collections: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))),
  })
  .openapi('SandboxSnapshot', {
    example: {
      format: 'partner-sandbox',
      schema_version: 1,
      seq: 42,
      saved_at: ex.times.purchased,
      collections: {
        partners: { [ex.ids.partner]: ex.partner },
        users: { [ex.ids.user]: ex.user },
      },
    },
  })

export const PartnerSnapshotDoc = SnapshotDoc.extend({
  partner_id: z.uuid().openapi({ description: 'The partner this snapshot is of.' }),
}).openapi('SandboxPartnerSnapshot', {
  example: {
    format: 'partner-sandbox',
    schema_version: 1,
    partner_id: ex.ids.partner,
    collections: { partners: { [ex.ids.partner]: ex.partner }, users: { [ex.ids.user]: ex.user } },
  },
  description:
    "One partner's rows (its own row, users, sessions, codes, onboardings, cards, money, webhooks, deliveries, events, files and their bytes), as GET /_sandbox/partners/{id}/snapshot exports them.",
})

export const ClockState = z
  .object({ now: z.string(), frozen: z.boolean(), offset_ms: z.number() })
  .openapi('SandboxClock', {
    example: { now: ex.times.purchased, frozen: false, offset_ms: 0 },
  })

export const PartnerClockState = z
  .object({
    partner_id: z.uuid(),
    now: z.string().openapi({ description: "The partner's time (ISO 8601)." }),
    frozen: z
      .boolean()
      .openapi({ description: 'True while the partner or the whole sandbox clock is frozen.' }),
    offset_ms: z.number().openapi({ description: "The partner's time minus the sandbox time." }),
  })
  .openapi('SandboxPartnerClock', {
    example: {
      partner_id: '3f0c9a52-7d1e-4c55-9a0e-1b2c3d4e5f60',
      now: '2026-01-01T00:11:00.000Z',
      frozen: false,
      offset_ms: 660000,
    },
  })

export const ClockMove = z
  .object({
    by: z.union([z.string(), z.number().int().nonnegative()]).optional().openapi({
      description: 'Advance by a duration: `90s`, `10m`, `1h30m`, `2d`, or milliseconds.',
    }),
    to: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Jump to this time.' }),
  })
  .strict()
  .refine((b) => (b.by === undefined) !== (b.to === undefined), {
    message: 'give exactly one of by, to',
  })
  .openapi('SandboxClockMove')

export const ClockFreeze = z
  .object({ at: z.iso.datetime({ offset: true }).optional() })
  .strict()
  .openapi('SandboxClockFreeze')

export const SnapshotQuery = z.object({
  include_secrets: z.enum(['true', 'false']).optional().openapi({
    description:
      'true: include the session signing key, webhook signing secrets and code hashes (redacted by default).',
    example: 'false',
  }),
})

/** The answer of a control action that only confirms. */
export const OkOnly = z.object({ ok: z.literal(true) }).openapi('SandboxOkOnly')

/** One event as the control plane shows it; also the example of a matched wait. */
export const sandboxEventExample = {
  id: 'evt_5Tz1Kq8Mw3Xd7Rb2',
  object: 'event' as const,
  type: 'card.funded' as const,
  created: 1772447100,
  livemode: false as const,
  api_version: 'v1' as const,
  data: { object: { id: 'card_9dKq2mZx7TbL4wRp', available_balance: 100 } },
}

/** An event as delivered to endpoints (DESIGN.md section 3). */
export const SandboxEvent = z
  .object({
    id: z.string().openapi({ example: 'evt_7h2k9x1m4q' }),
    object: z.literal('event'),
    type: z.string().openapi({ example: 'card.created' }),
    created: z.number().int().openapi({ description: 'Unix seconds, sandbox time.' }),
    livemode: z.literal(false),
    api_version: z.literal('v1'),
    data: z.object({
      object: z
        .record(z.string(), z.unknown())
        .openapi({ description: 'The resource the event is about; its shape depends on type.' }),
    }),
  })
  .openapi('SandboxEvent', { example: sandboxEventExample })
