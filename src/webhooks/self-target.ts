import { BlockList, isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { validationError } from '../errors.js'

/**
 * The sandbox never calls itself. A webhook URL that reaches the sandbox's own address and
 * port would let any partner drive the control plane (`/_sandbox/reset` wipes every partner
 * when no admin token is set) or another partner's API through the sandbox's own deliveries.
 * Such a URL is refused when an endpoint is made (literal spellings, no name lookup: making
 * one stays offline and instant) and again at each delivery, where a name is resolved and
 * each address it gives is checked before any connection opens.
 *
 * The built-in sink (`/_sandbox/sink/<name>`) is the one way in: it only records.
 *
 * What reaches the sandbox: any loopback or unspecified address (`localhost`, `127.x.y.z`,
 * `[::1]`, `0.0.0.0`, `[::]`, their other spellings, which the URL parser writes one way) on
 * the port it listens on, the address it is bound to, every address of this machine when it
 * is bound to all of them, and its `--public-url`. In process (`createSandbox` without a
 * server) nothing listens, so only the public URL can be compared until `setBaseUrl` says
 * where the sandbox is served.
 */

/** A sink's path: the one place a delivery may reach the sandbox. */
const SINK_PATH = /^\/_sandbox\/sink\/[\w-]{1,64}$/

/** Addresses that are this machine whatever it is bound to. */
const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('0.0.0.0', 'ipv4')
loopback.addAddress('::1', 'ipv6')
loopback.addAddress('::', 'ipv6')

const WILDCARD = new Set(['0.0.0.0', '::', '::0'])

/** A URL's host as an address or lower-case name: no brackets, no final dot. */
const bareHost = (url: URL) =>
  url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase()

const effectivePort = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80))

const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost')

function isLoopbackAddress(address: string): boolean {
  const family = isIP(address)
  return family !== 0 && loopback.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** Where the sandbox can be reached: its port, the addresses it answers on, its public URL. */
export interface SelfAddress {
  port?: number
  /** Whether this machine's loopback addresses reach it (false: a sandbox seen from afar). */
  loopback: boolean
  /** Addresses (not loopback) it answers on at `port`. */
  addresses: Set<string>
  /** `--public-url`, a proxy's address of it: origin and path prefix. */
  publicUrl?: URL
}

/** Why `raw` reaches the sandbox at `self` (a sentence), or undefined when it does not. */
export function selfReason(raw: string, self: SelfAddress): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return undefined
  }
  const prefix = self.publicUrl?.pathname.replace(/\/+$/, '') ?? ''
  if (self.publicUrl && url.origin === self.publicUrl.origin && url.pathname.startsWith(prefix)) {
    const rest = url.pathname.slice(prefix.length)
    if (SINK_PATH.test(rest)) return undefined
    return refusal(url, `the sandbox's public URL ${self.publicUrl.origin}${prefix}`, self)
  }
  if (self.port === undefined || effectivePort(url) !== self.port) return undefined
  const host = bareHost(url)
  const local =
    (self.loopback && (isLoopbackName(host) || isLoopbackAddress(host))) || self.addresses.has(host)
  if (!local || SINK_PATH.test(url.pathname)) return undefined
  return refusal(url, `port ${self.port} of this machine`, self)
}

/** Whether an address a name resolved to, on `port`, is the sandbox. */
export function isSelfAddress(address: string, port: number, self: SelfAddress): boolean {
  return (
    self.port !== undefined &&
    port === self.port &&
    ((self.loopback && isLoopbackAddress(address)) || self.addresses.has(address.toLowerCase()))
  )
}

function refusal(url: URL, where: string, self: SelfAddress): string {
  const sink = self.publicUrl
    ? `${self.publicUrl.href.replace(/\/+$/, '')}/_sandbox/sink/<name>`
    : `http://127.0.0.1:${self.port}/_sandbox/sink/<name>`
  return `${url.origin} is this sandbox itself (${where}): the sandbox never sends a webhook to its own API or control plane. To receive deliveries inside the sandbox, point the endpoint at its built-in sink, ${sink}.`
}

/** The sandbox's own address, learnt once it listens; what webhook URLs are checked against. */
export class SelfTarget {
  private readonly self: SelfAddress

  constructor(publicUrl: string | undefined) {
    this.self = {
      loopback: true,
      addresses: new Set(),
      publicUrl: publicUrl ? new URL(publicUrl) : undefined,
    }
  }

  /** The sandbox is served at `url` (startSandbox, or `setBaseUrl` for a server of one's own). */
  listening(url: string): void {
    const parsed = new URL(url)
    this.self.port = effectivePort(parsed)
    const host = bareHost(parsed)
    this.self.addresses = new Set(isLoopbackName(host) ? [] : [host])
    // Bound to every address: each of this machine's reaches it.
    if (WILDCARD.has(host))
      for (const list of Object.values(networkInterfaces()))
        for (const item of list ?? []) this.self.addresses.add(item.address.toLowerCase())
  }

  /** Why `url` reaches the sandbox itself, or undefined. */
  reason(url: string): string | undefined {
    return selfReason(url, this.self)
  }

  /**
   * What a delivery to `url` checks each address its name resolves to with: undefined when
   * none can be refused (the sink, or no port to compare with yet).
   */
  lookupGuard(url: string): ((address: string, port: number) => boolean) | undefined {
    if (this.self.port === undefined) return undefined
    try {
      if (SINK_PATH.test(new URL(url).pathname)) return undefined
    } catch {
      return undefined
    }
    return (address, port) => isSelfAddress(address, port, this.self)
  }
}

/**
 * A running sandbox as a client sees it at `url` (`partner-sandbox listen --url`): its host
 * on its port, and this machine's loopback addresses when that host is one of them (a
 * sandbox elsewhere is not reached through this machine's `localhost`).
 */
export function remoteSelf(url: string): SelfAddress {
  const parsed = new URL(url)
  const host = bareHost(parsed)
  const loopback = isLoopbackName(host) || isLoopbackAddress(host)
  return { port: effectivePort(parsed), loopback, addresses: new Set([host]) }
}

/** A 400 naming `field` when `url` reaches the sandbox itself. */
export function assertNotSelf(target: Pick<SelfTarget, 'reason'>, url: string, field: string) {
  const why = target.reason(url)
  if (why) throw validationError(field, why)
}
