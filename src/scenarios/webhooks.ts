import { z } from 'zod'
import { DEFAULT_SIGNATURE_HEADER } from '../webhooks/signer.js'

/** Delays before attempts 1–4 (DESIGN.md): at once, then 5 s, 30 s and 120 s after each failure. */
export const DEFAULT_RETRY_DELAYS_MS = [0, 5_000, 30_000, 120_000] as const
export const DEFAULT_TIMEOUT_MS = 5_000
export const ATTEMPTS = 4

export const webhooksSection = z
  .object({
    retry_delays_ms: z
      .array(z.number().int().nonnegative())
      .length(ATTEMPTS, 'give 4 delays: before attempt 1, 2, 3 and 4')
      .optional()
      .describe('Delay before each of the 4 attempts, in milliseconds.'),
    retry_scale: z
      .number()
      .nonnegative()
      .optional()
      .describe('Multiplies the retry delays (0.01 makes the whole schedule take 1.5 s).'),
    timeout_ms: z.number().int().positive().max(60_000).optional().describe('Per-attempt timeout.'),
    fail_first_attempts: z
      .number()
      .int()
      .min(0)
      .max(4)
      .optional()
      .describe(
        'Record the first N attempts of every delivery as failed without sending them (flaky receiver).',
      ),
    signature_header: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'a header name')
      .optional()
      .describe('Name of the t=…,v1=… signature header (default X-Service-Signature).'),
  })
  .strict()

/** What these decisions read of a scenario: only its own sections (schema.ts imports this). */
type WebhooksScenario = { webhooks?: z.infer<typeof webhooksSection> }

export interface WebhookPolicy {
  delays: number[]
  timeoutMs: number
  signatureHeader: string
  failFirstAttempts: number
}

/** `signatureHeader`: the name when the scenario sets none (the partner's, or the sandbox's). */
export function webhookPolicy(
  scenario: WebhooksScenario,
  signatureHeader = DEFAULT_SIGNATURE_HEADER,
): WebhookPolicy {
  const section = scenario.webhooks
  const scale = section?.retry_scale ?? 1
  return {
    delays: (section?.retry_delays_ms ?? DEFAULT_RETRY_DELAYS_MS).map((d) => Math.round(d * scale)),
    timeoutMs: section?.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    signatureHeader: section?.signature_header ?? signatureHeader,
    failFirstAttempts: section?.fail_first_attempts ?? 0,
  }
}
