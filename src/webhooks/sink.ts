import type { State, StateTx } from '../state/seam.js'
import type { SinkRow } from '../store/records-sinks.js'
import { DEFAULT_SIGNATURE_HEADER, verifySignatures } from './signer.js'

/**
 * The built-in webhook receiver (`/_sandbox/sink/:name`): point an endpoint at it in an
 * offline CI job, then read what arrived, with both signatures checked against the secret
 * it was given. It can be told to fail the next N requests or to answer slowly.
 */

export interface SinkConfig {
  secret: string | null
  fail_next: number
  fail_status: number
  delay_ms: number
  signature_header: string
}

/**
 * Caps, so that a long run or a hostile caller cannot grow memory without bound: at most
 * `maxSinks` sinks (the least recently used one is forgotten to make room), and per sink
 * the newest `maxRequests` requests within `maxBytes` of bodies and headers.
 */
export const SINK_LIMITS = { maxSinks: 100, maxRequests: 1000, maxBytes: 8 * 1024 * 1024 }

const emptyConfig = (signatureHeader: string): SinkConfig => ({
  secret: null,
  fail_next: 0,
  fail_status: 500,
  delay_ms: 0,
  signature_header: signatureHeader,
})

type SinkState = Pick<State, 'transaction' | 'range' | 'count' | 'get' | 'all'>

/**
 * The sinks, as state behind the seam (ephemeral collections `sinks` and `sink_requests`): a
 * second process sees what a sink received, and a reset or restore empties them.
 */
export class SinkRegistry {
  constructor(
    private readonly state: SinkState,
    private readonly limits = SINK_LIMITS,
    /** The header a new sink verifies: the sandbox's production name (`--signature-header`). */
    private readonly signatureHeader = DEFAULT_SIGNATURE_HEADER,
  ) {}

  async configure(name: string, patch: Partial<SinkConfig>): Promise<SinkConfig> {
    return this.state.transaction(async (tx) => {
      const sink = { ...(await this.use(tx, name)), ...patch }
      tx.put('sinks', sink)
      return configOf(sink)
    })
  }

  /** Records a request and decides the answer (status and delay). */
  receive(
    name: string,
    request: { method: string; headers: Record<string, string>; body: string; now: string },
  ): Promise<{ status: number; delayMs: number }> {
    return this.state.transaction(async (tx) => {
      const sink = await this.use(tx, name)
      const failing = sink.fail_next > 0
      if (failing) sink.fail_next--
      const status = failing ? sink.fail_status : 200
      sink.seq += 1
      sink.bytes += requestBytes(request)
      tx.put('sink_requests', {
        id: `${name}:${sink.seq}`,
        sink: name,
        number: sink.seq,
        received_at: request.now,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signature: sink.secret
          ? verifySignatures(sink.secret, request.headers, request.body, sink.signature_header)
          : null,
        responded_status: status,
      })
      // The oldest requests go while the sink holds too many, or too many bytes (but the newest).
      let held = await tx.count('sink_requests_by_sink', name)
      while (held > this.limits.maxRequests || (sink.bytes > this.limits.maxBytes && held > 1)) {
        const oldest = await tx.range('sink_requests_by_sink', name, {
          limit: Math.max(1, held - this.limits.maxRequests),
        })
        for (const old of oldest) {
          if (!(held > this.limits.maxRequests || (sink.bytes > this.limits.maxBytes && held > 1)))
            break
          tx.remove('sink_requests', old.id)
          sink.bytes -= requestBytes(old)
          held--
        }
      }
      tx.put('sinks', sink)
      return { status, delayMs: sink.delay_ms }
    })
  }

  /**
   * Newest first, as every control list: `{ data, has_more }`. Reading a sink that does not
   * exist answers it empty without creating it.
   */
  async read(name: string, limit = 100) {
    const [sink, requests, held] = await Promise.all([
      this.state.get('sinks', name),
      this.state.range('sink_requests_by_sink', name, { reverse: true, limit }),
      this.state.count('sink_requests_by_sink', name),
    ])
    return {
      name,
      config: redact(sink ? configOf(sink) : emptyConfig(this.signatureHeader)),
      data: requests.map(({ id: _, sink: __, number, ...request }) => ({ id: number, ...request })),
      has_more: held > limit,
    }
  }

  /** How many sinks there are. */
  async size(): Promise<number> {
    return (await this.state.all('sinks')).length
  }

  clear(name: string): Promise<void> {
    return this.state.transaction(async (tx) => forget(tx, name))
  }

  /**
   * The sink, created if needed, marked the most recently used; creating one past `maxSinks`
   * forgets the least recently used.
   */
  private async use(tx: StateTx, name: string): Promise<SinkRow> {
    // One past the most recent use, read in this transaction (at most maxSinks rows).
    const others = await tx.all('sinks')
    const used = others.reduce((most, other) => Math.max(most, other.used), 0) + 1
    const sink = others.find((other) => other.id === name)
    if (sink) return { ...sink, used }
    others.sort((a, b) => a.used - b.used)
    for (const old of others.slice(0, Math.max(0, others.length + 1 - this.limits.maxSinks)))
      await forget(tx, old.id)
    return { id: name, ...emptyConfig(this.signatureHeader), seq: 0, bytes: 0, used }
  }
}

/** Removes a sink and every request it holds. */
async function forget(tx: StateTx, name: string): Promise<void> {
  for (const request of await tx.lookup('sink_requests_by_sink', name))
    tx.remove('sink_requests', request.id)
  if (await tx.get('sinks', name)) tx.remove('sinks', name)
}

const configOf = (sink: SinkRow): SinkConfig => ({
  secret: sink.secret,
  fail_next: sink.fail_next,
  fail_status: sink.fail_status,
  delay_ms: sink.delay_ms,
  signature_header: sink.signature_header,
})

function requestBytes(request: { headers: Record<string, string>; body: string }): number {
  let bytes = Buffer.byteLength(request.body)
  for (const [key, value] of Object.entries(request.headers)) bytes += key.length + value.length
  return bytes
}

/** The sink's secret is the partner's; it is echoed only as set/not set. */
const redact = (config: SinkConfig) => ({ ...config, secret: config.secret ? 'set' : null })
