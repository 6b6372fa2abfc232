import { AsyncLocalStorage } from 'node:async_hooks'
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from './app-env.js'

/**
 * The base of every link the sandbox returns (embed URL, connect URL, picture URL).
 *
 * With `--public-url` it is that URL. Without it, it is the origin the caller used to reach
 * us: the request's `Host`, or, with `--trust-proxy`, `X-Forwarded-Proto`/`X-Forwarded-Host`
 * as the proxy in front sets them. Any client can send those headers, so without a setting
 * that says a proxy stands in front they would let a caller bend the links handed to others
 * (an embed URL on evil.example). In a container bound to 0.0.0.0 and published on another
 * port, the Host is the only address that works from the caller's side. Domain code reads it through `deps.baseUrl()`,
 * so the origin travels with the request in an AsyncLocalStorage instead of every function
 * taking the context. Outside a request (a sweeper tick, a webhook retry) it is the origin
 * of the latest request, else the listen URL with a wildcard address made loopback.
 */

/** A host name, IPv4 or [IPv6], with an optional port: nothing a link could be bent by. */
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i
/** Addresses a server binds to but no client can reach it at. */
const WILDCARD = /^(?:0\.0\.0\.0|\[::\]|\[::0*\])(?=:|$)/

const first = (value: string | undefined) => value?.split(',')[0]?.trim() || undefined

/** The usable host[:port] of a header value, or undefined. */
function cleanHost(value: string | undefined): string | undefined {
  const host = first(value)
  if (!host || !HOST.test(host)) return undefined
  return host.replace(WILDCARD, '127.0.0.1')
}

/**
 * The origin (`proto://host[:port]`) a request was addressed to, or undefined if unusable.
 * `X-Forwarded-*` count only when `trustProxy` says a proxy in front sets them.
 */
export function originOf(
  headers: (name: string) => string | undefined,
  url: string,
  trustProxy = false,
) {
  const forwardedProto = trustProxy ? first(headers('x-forwarded-proto'))?.toLowerCase() : undefined
  const proto =
    forwardedProto === 'http' || forwardedProto === 'https'
      ? forwardedProto
      : new URL(url).protocol.slice(0, -1)
  const host =
    (trustProxy ? cleanHost(headers('x-forwarded-host')) : undefined) ??
    cleanHost(headers('host')) ??
    cleanHost(new URL(url).host)
  return host ? `${proto}://${host}` : undefined
}

/** A listen URL fit for links: 0.0.0.0 / [::] become 127.0.0.1. */
export function linkableListenUrl(url: string): string {
  const parsed = new URL(url)
  return `${parsed.protocol}//${parsed.host.replace(WILDCARD, '127.0.0.1')}`
}

export interface RequestOrigins {
  /** The base URL for links in the current request (or the fallback outside one). */
  baseUrl(): string
  /** Sets the fallback once the server listens. No effect with a public URL. */
  setListenUrl(url: string): void
  /**
   * Records a request's origin before the rest of it runs (`originsOf` below). Answers `true` when the request was counted among those sharing one
   * origin (call `leave()` once it is answered), an origin when the rest must run with its
   * own (`run(origin, rest)`), or undefined when there is nothing to undo.
   */
  enter(c: Context<AppEnv>): true | string | undefined
  leave(): void
  run<T>(origin: string, rest: () => T): T
}

/**
 * Why not simply an AsyncLocalStorage around every request: on Node 20 its first `run()`
 * turns on async hooks for every promise of the process, which cost a quarter of the CPU
 * time of an authenticated GET. So requests run in one only when they must: while every
 * request in flight came in with the same origin (one client, one proxy: nearly always),
 * that origin is the answer for all of them and no storage is needed; a request whose origin
 * differs from the ones in flight carries its own in an AsyncLocalStorage.
 */
export function requestOrigins(
  publicUrl: string | undefined,
  listenUrl: string,
  trustProxy = false,
): RequestOrigins {
  if (publicUrl) {
    const fixed = publicUrl.replace(/\/+$/, '')
    return {
      baseUrl: () => fixed,
      setListenUrl: () => {},
      enter: () => undefined,
      leave: () => {},
      run: (_origin, rest) => rest(),
    }
  }
  const current = new AsyncLocalStorage<string>()
  let fallback = linkableListenUrl(listenUrl)
  let latest: string | undefined
  /** The origin shared by the `shared` requests in flight outside the storage. */
  let sharedOrigin: string | undefined
  let shared = 0
  /** Origins by what they are made of: making one parses the URL and runs two regexes. */
  const known = new Map<string, string | undefined>()
  const originFor = (c: Context<AppEnv>) => {
    const proto = (trustProxy && c.req.header('x-forwarded-proto')) || ''
    const forwarded = (trustProxy && c.req.header('x-forwarded-host')) || ''
    const host = c.req.header('host') ?? ''
    const url = c.req.url
    const authority = url.slice(0, url.indexOf('/', url.indexOf('//') + 2))
    const key = `${proto} ${forwarded} ${host} ${authority}`
    if (known.has(key)) return known.get(key)
    const origin = originOf((name) => c.req.header(name), url, trustProxy)
    if (known.size >= 256) known.clear()
    known.set(key, origin)
    return origin
  }
  return {
    baseUrl: () => current.getStore() ?? sharedOrigin ?? latest ?? fallback,
    setListenUrl(url) {
      fallback = linkableListenUrl(url)
    },
    enter(c) {
      const origin = originFor(c)
      if (!origin) return undefined
      latest = origin
      if (shared > 0 && origin !== sharedOrigin) return origin
      sharedOrigin = origin
      shared++
      return true
    },
    leave() {
      if (--shared === 0) sharedOrigin = undefined
    },
    run: (origin, rest) => current.run(origin, rest),
  }
}

/** An IPv6 address in a URL needs brackets. */
export const hostForUrl = (host: string) => (host.includes(':') ? `[${host}]` : host)

/** The middleware that gives every link made while a request runs that request's origin. */
export function originsOf(origins: RequestOrigins): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ticket = origins.enter(c)
    if (typeof ticket === 'string') return origins.run(ticket, next)
    try {
      await next()
    } finally {
      if (ticket === true) origins.leave()
    }
  }
}
