import type { PartnerRow } from '../store/records.js'
import { verifySecret } from './secret-hash.js'

/**
 * Remembers which (partner, secret) pair scrypt has already verified, so a request costs a
 * constant-time comparison instead of a 40 ms scrypt. The pair lives only in this
 * process's memory (never in the data file or a log), and each entry is tied to the stored
 * hash it was verified against: rotating the secret changes the hash, so the old pair
 * misses at once. Status (suspended, revoked) is never cached; the caller reads it from the
 * partner row each time.
 */
export class CredentialCache {
  private readonly verified = new Map<string, { hash: string; secret: string }>()
  private readonly inFlight = new Map<string, Promise<boolean>>()
  /**
   * The partner row each API key named, with the version of that key (State.keyVersion of
   * partners_by_api_key) it was read at: a pure derivation of the state, good only while no
   * write to a row under the key moved it, so a request finds its partner without waiting on
   * the state (status included) however much else is written.
   */
  private readonly rows = new Map<string, { version: number; partner: PartnerRow | undefined }>()
  private readonly limit: number

  constructor(limit = 10_000) {
    this.limit = limit
  }

  /** The answer without scrypt when this partner's current hash was verified before, else undefined. */
  verifyCached(partnerId: string, secret: string, storedHash: string): boolean | undefined {
    const hit = this.verified.get(partnerId)
    if (!hit || hit.hash !== storedHash) return undefined
    // Only one secret matches a hash, so a different one is wrong without running scrypt.
    return sameSecret(hit.secret, secret)
  }

  async verify(partnerId: string, secret: string, storedHash: string): Promise<boolean> {
    const cached = this.verifyCached(partnerId, secret, storedHash)
    if (cached !== undefined) return cached

    // Many parallel first requests with the same pair share one scrypt run.
    const flightKey = `${partnerId}\n${storedHash}\n${secret}`
    let pending = this.inFlight.get(flightKey)
    if (!pending) {
      pending = verifySecret(secret, storedHash).finally(() => this.inFlight.delete(flightKey))
      this.inFlight.set(flightKey, pending)
    }
    const ok = await pending
    if (ok) {
      if (this.verified.size >= this.limit) this.verified.clear()
      this.verified.set(partnerId, { hash: storedHash, secret })
    }
    return ok
  }

  /** The row `key` names when it was read at this very version of the key, else undefined. */
  partnerAt(key: string, version: number): { partner: PartnerRow | undefined } | undefined {
    const known = this.rows.get(key)
    return known?.version === version ? known : undefined
  }

  notePartner(key: string, version: number, partner: PartnerRow | undefined): void {
    if (this.rows.size >= this.limit) this.rows.clear()
    this.rows.set(key, { version, partner })
  }

  forget(partnerId: string): void {
    this.verified.delete(partnerId)
  }
}

/**
 * Compares every character whatever the first difference, so the time taken tells nothing of
 * how much of a guess was right (what timingSafeEqual does for buffers, without converting
 * the header to a Buffer on every request). Only the length shows, as with timingSafeEqual.
 */
function sameSecret(known: string, given: string): boolean {
  if (known.length !== given.length) return false
  let difference = 0
  for (let i = 0; i < known.length; i++) difference |= known.charCodeAt(i) ^ given.charCodeAt(i)
  return difference === 0
}
