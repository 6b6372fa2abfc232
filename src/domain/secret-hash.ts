import { createHash, scrypt, timingSafeEqual } from 'node:crypto'
import type { Random } from '../random.js'

/**
 * One-way hashes for API secrets and passwords: scrypt with a random salt, the cost
 * parameters kept in the hash (`scrypt$N$r$p$salt$hash`) so stored hashes stay valid if
 * the default cost changes.
 */

export interface ScryptCost {
  N: number
  r: number
  p: number
}

/** For API secrets: verified once, then cached (see credential-cache.ts). */
export const SECRET_COST: ScryptCost = { N: 16384, r: 8, p: 1 }

const KEY_LENGTH = 32

function derive(secret: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, { ...cost, maxmem: 256 * cost.N * cost.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    )
  })
}

export async function hashSecret(
  secret: string,
  random: Random,
  cost = SECRET_COST,
): Promise<string> {
  const salt = random.bytes(16)
  const key = await derive(secret, salt, cost)
  return [
    'scrypt',
    cost.N,
    cost.r,
    cost.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$')
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(secret, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  })
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/** A fast digest, used only in memory to recognise a pair that scrypt already verified. */
export const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

/**
 * For user passwords, hashed at every registration and checked at every login. Sandbox
 * passwords are test data, so the cost is kept low enough for hundreds of flows a second
 * on two cores (about 0.6 ms a hash; N=1024 made the two hashes of a flow the bottleneck
 * of the happy-path benchmark); the hash is still salted and one-way, and hashes made
 * with another cost (the fixtures') stay valid because the cost is stored in each hash.
 */
export const PASSWORD_COST: ScryptCost = { N: 256, r: 8, p: 1 }
