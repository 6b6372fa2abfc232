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
}

const CAPACITY = 1000

export class SinkRegistry {
  private readonly sinks = new Map<string, Sink>()

  private sink(name: string): Sink {
    let sink = this.sinks.get(name)
    if (!sink) {
      sink = {
        config: {
          secret: null,
          fail_next: 0,
          fail_status: 500,
          delay_ms: 0,
          signature_header: DEFAULT_SIGNATURE_HEADER,
        },
        requests: [],
        seq: 0,
      }
      this.sinks.set(name, sink)
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
    sink.requests.push({
      id: ++sink.seq,
      received_at: request.now,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signature,
      responded_status: status,
    })
    if (sink.requests.length > CAPACITY) sink.requests.shift()
    return { status, delayMs: config.delay_ms }
  }

  /** Newest first. */
  read(name: string, limit = 100) {
    const sink = this.sink(name)
    return { name, config: redact(sink.config), requests: sink.requests.slice(-limit).reverse() }
  }

  clear(name: string): void {
    this.sinks.delete(name)
  }
}

/** The sink's secret is the partner's; it is echoed only as set/not set. */
const redact = (config: SinkConfig) => ({ ...config, secret: config.secret ? 'set' : null })
