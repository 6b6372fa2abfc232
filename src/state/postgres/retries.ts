/**
 * Runs a transaction again when PostgreSQL chose it as the loser of a conflict: a serialization
 * failure (another transaction read or wrote what it wrote) or a deadlock. Nothing of the lost
 * attempt was committed, so running it again from the start is what the memory engine's queue
 * does by running it after the other. The waits grow (to a second) and are jittered, so
 * transactions that collided do not collide again in step: under sixteen concurrent flows a
 * ceiling of 50 ms let a long transaction lose sixty times in a row (a 500).
 */

/** SQLSTATEs of a transaction that may succeed when run again. */
const RETRYABLE = new Set(['40001', '40P01'])

const MAX_ATTEMPTS = 60

export async function withRetries<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt()
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code
      if (typeof code !== 'string' || !RETRYABLE.has(code) || n >= MAX_ATTEMPTS) throw error
      const ceiling = Math.min(1_000, 2 ** Math.min(n, 10))
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling))
    }
  }
}
