import { WaitTimeoutError } from './errors.js'
import type { Transport } from './http.js'
import type { SandboxDelivery, SandboxEventEnvelope, SandboxWaitResult } from './types.js'

/** The server holds one wait at most this long; a longer wait asks again. */
const SERVER_MAX_MS = 30_000

export interface WaitForOptions {
  /** How long to wait in all, ms (default 10 s). */
  timeout?: number
  /** Only an event this accepts (others are skipped, and the wait goes on after them). */
  where?: (event: SandboxEventEnvelope) => boolean
  /** Only events recorded after this event id (see `latest()`). */
  after?: string
  /** Wait until a delivery of the event to the partner's endpoint succeeded. */
  delivered?: boolean
  signal?: AbortSignal
}

/**
 * Waits on the long-poll route: each call is held by the server until an event matches or
 * its own timeout; a match `where` refuses moves the cursor past it. No client-side polling.
 */
export async function waitForEvent(
  transport: Transport,
  partnerId: string,
  type: string | undefined,
  options: WaitForOptions = {},
): Promise<{ event: SandboxEventEnvelope; delivery: SandboxDelivery | null }> {
  const total = options.timeout ?? 10_000
  const deadline = Date.now() + total
  let after = options.after
  for (;;) {
    const left = deadline - Date.now()
    if (left <= 0) throw new WaitTimeoutError(type, total)
    const result = await transport.request<SandboxWaitResult>(
      'GET',
      `/_sandbox/partners/${encodeURIComponent(partnerId)}/events/wait`,
      {
        query: {
          type,
          after,
          delivered: options.delivered ? 'true' : undefined,
          timeout: Math.max(1, Math.min(left, SERVER_MAX_MS)),
        },
        signal: options.signal,
      },
    )
    if (result.status === 'matched' && result.event) {
      if (!options.where || options.where(result.event))
        return { event: result.event, delivery: result.delivery }
      after = result.event.id
    }
  }
}
