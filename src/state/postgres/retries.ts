/**
 * Runs a transaction again when PostgreSQL chose it as the loser of a conflict: a serialization
 * failure (another transaction read or wrote what it wrote) or a deadlock. Nothing of the lost
 * attempt was committed, so running it again from the start is what the memory engine's queue
 * does by running it after the other. The waits grow (to a second) and are jittered, so
 * transactions that collided do not collide again in step.
 *
 * SERIALIZABLE promises no progress: under sixteen concurrent flows a long transaction
 * (completing an onboarding) lost sixty times in a row to shorter ones, a 500. So one that lost
 * ALONE_AFTER times runs alone among its partner's. Each transaction of a partner begins by
 * taking its partner's advisory lock shared, if it can without waiting (`turns`); the one that
 * runs alone takes it exclusive before it begins, waiting for those under way, and those that
 * begin meanwhile find the turn taken: they give their connection back and wait for it (a
 * transaction never holds a connection while it waits for another's, so waiting never starves
 * the pool). In one process one transaction at a time waits for a partner's turn, and the
 * others of the process wait for it there; of another replica's, they try again shortly.
 */

/** SQLSTATEs of a transaction that may succeed when run again. */
const RETRYABLE = new Set(['40001', '40P01'])
/** The code of a transaction that found its partner's turn taken (pool.ts, within). */
export const TURN_TAKEN = 'turn_taken'

const MAX_ATTEMPTS = 60
/** Losses after which a transaction runs alone among its partner's. */
const ALONE_AFTER = 3
/** How often a transaction finds its partner's turn taken before it gives up. */
const MAX_TURN_WAITS = 1_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The tail of each turn's transactions that run alone in this process. */
const aloneHere = new Map<string, Promise<unknown>>()

/** `fn` once every transaction of `turn` that runs alone here before it has finished. */
async function oneAtATime<T>(turn: string, fn: () => Promise<T>): Promise<T> {
  const mine = (aloneHere.get(turn) ?? Promise.resolve()).then(fn)
  const tail = mine.catch(() => {})
  aloneHere.set(turn, tail)
  try {
    return await mine
  } finally {
    if (aloneHere.get(turn) === tail) aloneHere.delete(turn)
  }
}

export async function withRetries<T>(
  attempt: (alone: boolean) => Promise<T>,
  turn = '',
): Promise<T> {
  let losses = 0
  let waits = 0
  for (;;) {
    try {
      if (losses >= ALONE_AFTER) return await oneAtATime(turn, () => attempt(true))
      // One of this process runs alone: wait for it here, not at the database.
      await aloneHere.get(turn)
      return await attempt(false)
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code
      if (code === TURN_TAKEN && ++waits < MAX_TURN_WAITS) {
        // Taken here: wait for it; taken by another replica: try again shortly.
        await (aloneHere.get(turn) ?? sleep(Math.random() * Math.min(50, 2 ** waits)))
        continue
      }
      if (typeof code !== 'string' || !RETRYABLE.has(code) || ++losses >= MAX_ATTEMPTS) throw error
      await sleep(Math.random() * Math.min(1_000, 2 ** Math.min(losses, 10)))
    }
  }
}

/** Advisory locks of this sandbox's transactions (the first of the two keys PostgreSQL takes). */
const TURNS = 0x5b0c

const BEGIN = 'BEGIN ISOLATION LEVEL SERIALIZABLE'

/**
 * A partner's turn in one schema (replicas on one database share it): its `key`, `begin` for a
 * transaction among others (its `turn` column false when the turn is taken), and `alone`, the
 * statements around one that runs alone (pool.ts, transact). Transactions of no partner (the
 * sweeper's, the control plane's) have a turn of their own.
 */
export function turns(schema: string, partner: string | undefined) {
  let hash = 0x811c9dc5
  for (const char of `${schema}|${partner ?? ''}`)
    hash = Math.imul(hash ^ char.charCodeAt(0), 16777619)
  const key = `${TURNS}, ${hash | 0}`
  return {
    key,
    begin: `${BEGIN}; SELECT pg_try_advisory_xact_lock_shared(${key}) AS turn`,
    alone: {
      before: `SELECT pg_advisory_lock(${key})`,
      begin: BEGIN,
      after: `SELECT pg_advisory_unlock(${key})`,
    },
  }
}
