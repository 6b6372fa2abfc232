import { DEFAULT_SIGNATURE_HEADER, type SignatureCheck, verifySignatures } from './signer.js'

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

export interface SinkRequest {
  id: number
  received_at: string
  method: string
  headers: Record<string, string>
  body: string
  /** Null when the sink has no secret to check with. */
  signature: SignatureCheck | null
  responded_status: number
}

interface Sink {
  config: SinkConfig
  requests: SinkRequest[]
  seq: number
  /** Bytes of the kept requests' bodies and headers. */
  bytes: number
}

/**
 * Caps, so that a long run or a hostile caller cannot grow memory without bound: at most
 * `maxSinks` sinks (the least recently used one is forgotten to make room), and per sink
 * the newest `maxRequests` requests within `maxBytes` of bodies and headers.
 */
export const SINK_LIMITS = { maxSinks: 100, maxRequests: 1000, maxBytes: 8 * 1024 * 1024 }

const emptyConfig = (): SinkConfig => ({
  secret: null,
  fail_next: 0,
  fail_status: 500,
  delay_ms: 0,
  signature_header: DEFAULT_SIGNATURE_HEADER,
})

export class SinkRegistry {
  private readonly sinks = new Map<string, Sink>()

  constructor(private readonly limits = SINK_LIMITS) {}

  /** The sink, created if needed, moved to the most recently used end of the map. */
  private sink(name: string): Sink {
    let sink = this.sinks.get(name)
    if (sink) this.sinks.delete(name)
    else sink = { config: emptyConfig(), requests: [], seq: 0, bytes: 0 }
    this.sinks.set(name, sink)
    while (this.sinks.size > this.limits.maxSinks) {
      this.sinks.delete(this.sinks.keys().next().value as string)
    }
    return sink
  }

  configure(name: string, patch: Partial<SinkConfig>): SinkConfig {
    const sink = this.sink(name)
    sink.config = { ...sink.config, ...patch }
    return sink.config
  }

  /** Records a request and decides the answer (status and delay). */
  receive(
    name: string,
    request: { method: string; headers: Record<string, string>; body: string; now: string },
  ) {
    const sink = this.sink(name)
    const { config } = sink
    const failing = config.fail_next > 0
    if (failing) config.fail_next--
    const status = failing ? config.fail_status : 200
    const signature = config.secret
      ? verifySignatures(config.secret, request.headers, request.body, config.signature_header)
      : null
    const size = requestBytes(request)
    sink.requests.push({
      id: ++sink.seq,
      received_at: request.now,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signature,
      responded_status: status,
    })
    sink.bytes += size
    while (
      sink.requests.length > this.limits.maxRequests ||
      (sink.bytes > this.limits.maxBytes && sink.requests.length > 1)
    ) {
      sink.bytes -= requestBytes(sink.requests.shift() as SinkRequest)
    }
    return { status, delayMs: config.delay_ms }
  }

  /**
   * Newest first, as every control list: `{ data, has_more }`. Reading a sink that does not
   * exist answers it empty without creating it.
   */
  read(name: string, limit = 100) {
    const sink = this.sinks.get(name)
    const requests = sink?.requests ?? []
    return {
      name,
      config: redact(sink?.config ?? emptyConfig()),
      data: requests.slice(-limit).reverse(),
      has_more: requests.length > limit,
    }
  }

  get size(): number {
    return this.sinks.size
  }

  clear(name: string): void {
    this.sinks.delete(name)
  }
}

function requestBytes(request: { headers: Record<string, string>; body: string }): number {
  let bytes = Buffer.byteLength(request.body)
  for (const [key, value] of Object.entries(request.headers)) bytes += key.length + value.length
  return bytes
}

/** The sink's secret is the partner's; it is echoed only as set/not set. */
const redact = (config: SinkConfig) => ({ ...config, secret: config.secret ? 'set' : null })
