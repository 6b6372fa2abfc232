import { createHash } from 'node:crypto'
import { verifySecret } from './secret-hash.js'

/**
 * Remembers which secret scrypt has already verified for an API key, so a request costs a
 * SHA-256 and a constant-time comparison instead of a 40 ms scrypt. What is kept cannot go
 * stale: the stored hash the secret was verified against and the secret's SHA-256 (never the
 * secret itself), checked against the partner row read in the same request. A rotation
 * through any process changes the stored hash, so the old pair misses at once; status
 * (suspended, revoked) is never kept: the caller reads it from that row. Only in this
 * process's memory (never in the data file or a log).
 */
export class CredentialCache {
  private readonly verified = new Map<string, { hash: string; digest: string }>()
  private readonly inFlight = new Map<string, Promise<boolean>>()
  private readonly limit: number

  constructor(limit = 10_000) {
    this.limit = limit
  }

  /**
   * The answer without scrypt when the secret of `key` was verified before against
   * `storedHash` (the hash of the row read in this request), else undefined.
   */
  verifyCached(key: string, secret: string, storedHash: string): boolean | undefined {
    const hit = this.verified.get(key)
    if (!hit || hit.hash !== storedHash) return undefined
    // Only one secret matches a hash, so a different one is wrong without running scrypt.
    return sameText(hit.digest, digestOf(secret))
  }

  async verify(key: string, secret: string, storedHash: string): Promise<boolean> {
    const cached = this.verifyCached(key, secret, storedHash)
    if (cached !== undefined) return cached

    // Many parallel first requests with the same pair share one scrypt run.
    const digest = digestOf(secret)
    const flightKey = `${key}\n${storedHash}\n${digest}`
    let pending = this.inFlight.get(flightKey)
    if (!pending) {
      pending = verifySecret(secret, storedHash).finally(() => this.inFlight.delete(flightKey))
      this.inFlight.set(flightKey, pending)
    }
    const ok = await pending
    if (ok) {
      if (this.verified.size >= this.limit) this.verified.clear()
      this.verified.set(key, { hash: storedHash, digest })
    }
    return ok
  }
}

const digestOf = (secret: string) => createHash('sha256').update(secret).digest('base64')

/**
 * Compares every character whatever the first difference, so the time taken tells nothing of
 * how much of a guess was right (what timingSafeEqual does for buffers). Only the length
 * shows, and digests all have one length.
 */
function sameText(known: string, given: string): boolean {
  if (known.length !== given.length) return false
  let difference = 0
  for (let i = 0; i < known.length; i++) difference |= known.charCodeAt(i) ^ given.charCodeAt(i)
  return difference === 0
}
