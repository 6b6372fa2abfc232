import { createHmac, timingSafeEqual, webcrypto } from 'node:crypto'
import type { Random } from '../random.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { MetaRow } from '../store/records.js'

type CryptoKey = webcrypto.CryptoKey

/**
 * The sandbox's own key for session JWTs and code HMACs. It lives in the state (so sessions
 * survive a restart with a data file) and is made anew after a reset, which also ends every
 * session. It grants nothing outside this sandbox.
 */
export async function signingKey(ctx: { random: Random }, tx: StateTx): Promise<Buffer> {
  let meta = await tx.get('meta', 'sandbox')
  if (!meta) {
    meta = { id: 'sandbox', session_signing_key: ctx.random.bytes(32).toString('base64url') }
    tx.put('meta', meta)
  }
  return keyOf(meta)
}

/** The key when one was made; none means no token or code was ever signed with one. */
export async function existingSigningKey(reader: StateReader): Promise<Buffer | undefined> {
  const meta = await reader.get('meta', 'sandbox')
  return meta ? keyOf(meta) : undefined
}

/**
 * Each meta row's key decoded once (a login and its code check read it several times): by
 * the row object, checked against the row's text (a new key, after a reset, is decoded
 * again); an engine that reads copies of its rows decodes each copy. Never written to.
 */
const decoded = new WeakMap<MetaRow, { text: string; key: Buffer }>()
function keyOf(meta: MetaRow): Buffer {
  const known = decoded.get(meta)
  if (known?.text === meta.session_signing_key) return known.key
  const key = Buffer.from(meta.session_signing_key, 'base64url')
  decoded.set(meta, { text: meta.session_signing_key, key })
  return key
}

/** HMAC of a one-time code or reset token, bound to its row id so equal codes hash apart. */
export function hashWithKey(key: Buffer, id: string, value: string): string {
  return createHmac('sha256', key).update(`${id}:${value}`).digest('base64url')
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
export function jwtKey(raw: Buffer): Promise<CryptoKey> {
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
