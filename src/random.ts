import { createHash, randomBytes } from 'node:crypto'

/**
 * Every generated id, credential and value comes from here. Without a seed it is
 * crypto-random; with `--seed N` it is a deterministic SHA-256 counter stream, so a run
 * with the same seed and the same requests produces the same ids.
 */
export interface Random {
  readonly seed: number | undefined
  bytes(n: number): Buffer
  uuid(): string
  /** `prefix` + `length` characters of [0-9A-Za-z]. */
  token(length: number, prefix?: string): string
  /** Integer in [min, max]. */
  int(min: number, max: number): number
  /** Prefixed id as in DESIGN.md: `card_…`, `txn_…`. */
  id(prefix: string): string
}

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

export function createRandom(seed?: number): Random {
  let counter = 0
  let pool = Buffer.alloc(0)
  const seeded = (n: number): Buffer => {
    while (pool.length < n) {
      const block = createHash('sha256').update(`partner-sandbox:${seed}:${counter++}`).digest()
      pool = Buffer.concat([pool, block])
    }
    const out = pool.subarray(0, n)
    pool = pool.subarray(n)
    return Buffer.from(out)
  }
  // Crypto randomness drawn 4 KiB at a time: one syscall per ~150 ids instead of one each.
  let entropy = Buffer.alloc(0)
  const pooled = (n: number): Buffer => {
    if (n > 1024) return randomBytes(n)
    if (entropy.length < n) entropy = randomBytes(4096)
    const out = Buffer.from(entropy.subarray(0, n))
    entropy = entropy.subarray(n)
    return out
  }
  const bytes = seed === undefined ? pooled : seeded

  const token = (length: number, prefix = '') => {
    let out = prefix
    // Rejection sampling keeps every character equally likely.
    while (out.length < prefix.length + length) {
      for (const b of bytes(length)) {
        if (b < 248 && out.length < prefix.length + length) out += alphabet[b % 62]
      }
    }
    return out
  }

  return {
    seed,
    bytes,
    uuid() {
      const b = bytes(16)
      b[6] = ((b[6] as number) & 0x0f) | 0x40
      b[8] = ((b[8] as number) & 0x3f) | 0x80
      const h = b.toString('hex')
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
    },
    token,
    int(min, max) {
      const span = max - min + 1
      return min + (bytes(4).readUInt32BE(0) % span)
    },
    id: (prefix) => token(24, `${prefix}_`),
  }
}
