import { z } from 'zod'

/**
 * The built-in webhook receivers (webhooks/sink.ts): state the seam holds, but ephemeral (never
 * journaled or snapshotted; a reset or restore empties them).
 */

/** A sink by its name: how it answers, and what it holds. */
export const sinkRow = z.object({
  /** The sink's name (`/_sandbox/sink/:name`). */
  id: z.string(),
  secret: z.string().nullable(),
  fail_next: z.number().int().nonnegative(),
  fail_status: z.number().int(),
  delay_ms: z.number().int().nonnegative(),
  signature_header: z.string(),
  /** The number of the last request it received (its requests count from 1). */
  seq: z.number().int().nonnegative(),
  /** Bytes of the kept requests' bodies and headers. */
  bytes: z.number().int().nonnegative(),
  /** The order of its last configuration or request among the sinks: the least recent goes first. */
  used: z.number().int().nonnegative(),
})
export type SinkRow = z.infer<typeof sinkRow>

/** One request a sink received, byte for byte, with what it answered. */
export const sinkRequestRow = z.object({
  /** `<sink name>:<number>`. */
  id: z.string(),
  sink: z.string(),
  number: z.number().int().positive(),
  received_at: z.string(),
  method: z.string(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  /** Null when the sink has no secret to check with. */
  signature: z.object({ service: z.boolean(), standard: z.boolean() }).nullable(),
  responded_status: z.number().int(),
})
export type SinkRequestRow = z.infer<typeof sinkRequestRow>
