import { timingSafeEqual } from 'node:crypto'
import { digest, verifySecret } from './secret-hash.js'

/**
 * Remembers which (partner, secret) pairs scrypt has already verified, so a request costs a
 * SHA-256 instead of a 40 ms scrypt. An entry is tied to the stored hash it was verified
 * against: rotating the secret changes the hash, so the old pair misses at once. Status
 * (suspended, revoked) is never cached; the caller reads it from the partner row each time.
 */
export class CredentialCache {
  private readonly verified = new Map<string, { hash: string; digest: Buffer }>()
  private readonly inFlight = new Map<string, Promise<boolean>>()
  private readonly limit: number

  constructor(limit = 10_000) {
    this.limit = limit
  }

  async verify(partnerId: string, secret: string, storedHash: string): Promise<boolean> {
    const provided = digest(secret)
    const hit = this.verified.get(partnerId)
    if (hit && hit.hash === storedHash) return timingSafeEqual(hit.digest, provided)

    // Many parallel first requests with the same pair share one scrypt run.
    const flightKey = `${partnerId}:${provided.toString('base64')}:${storedHash}`
    let pending = this.inFlight.get(flightKey)
    if (!pending) {
      pending = verifySecret(secret, storedHash).finally(() => this.inFlight.delete(flightKey))
      this.inFlight.set(flightKey, pending)
    }
    const ok = await pending
    if (ok) {
      if (this.verified.size >= this.limit) this.verified.clear()
      this.verified.set(partnerId, { hash: storedHash, digest: provided })
    }
    return ok
  }

  forget(partnerId: string): void {
    this.verified.delete(partnerId)
  }
}
