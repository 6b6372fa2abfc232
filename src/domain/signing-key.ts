import { createHmac, timingSafeEqual, webcrypto } from 'node:crypto'

type CryptoKey = webcrypto.CryptoKey

import type { Deps } from '../deps.js'

/**
 * The sandbox's own key for session JWTs and code HMACs. It lives in the store (so sessions
 * survive a restart with a data file) and is made anew after a reset, which also ends every
 * session. It grants nothing outside this sandbox.
 */
export function signingKey(deps: Pick<Deps, 'store' | 'random'>): Buffer {
  let meta = deps.store.get('meta', 'sandbox')
  if (!meta) {
    meta = { id: 'sandbox', session_signing_key: deps.random.bytes(32).toString('base64url') }
    deps.store.put('meta', meta)
  }
  return Buffer.from(meta.session_signing_key, 'base64url')
}

/** HMAC of a one-time code or reset token, bound to its row id so equal codes hash apart. */
export function codeHash(deps: Pick<Deps, 'store' | 'random'>, id: string, value: string): string {
  return createHmac('sha256', signingKey(deps)).update(`${id}:${value}`).digest('base64url')
}

/** Whether two hashes (a stored `codeHash` and a fresh one) are equal, in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * The signing key as a WebCrypto key for jose, imported once per key: handing jose raw
 * bytes makes it import the key again on every sign and verify.
 */
const jwtKeys = new Map<string, Promise<CryptoKey>>()
export function jwtKey(deps: Pick<Deps, 'store' | 'random'>): Promise<CryptoKey> {
  const raw = signingKey(deps)
  const id = raw.toString('base64url')
  let key = jwtKeys.get(id)
  if (!key) {
    key = webcrypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ])
    if (jwtKeys.size >= 16) jwtKeys.clear()
    jwtKeys.set(id, key)
  }
  return key
}
