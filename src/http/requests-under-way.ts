import type { serve } from '@hono/node-server'

type Fetch = Parameters<typeof serve>[0]['fetch']

/**
 * How long a stop waits for the requests still being answered: long enough for any ordinary
 * request, short of a programmed latency (a rule) holding the stop up.
 */
export const STOP_GRACE_MS = 3000

/**
 * The server's requests still being answered. A stop closes the sockets, but a handler under
 * way still runs, and its writes (on PostgreSQL, its journal row too, written before the
 * answer) must land before the state closes: a query on a closed database fails, and a clean
 * stop would log it. Only an answer that is a promise is followed (no extra async call).
 */
export function requestsUnderWay(fetch: Fetch) {
  const pending = new Set<Promise<unknown>>()
  const followed: Fetch = (request, env) => {
    const answer = fetch(request, env)
    if (answer instanceof Promise) {
      pending.add(answer)
      const done = () => pending.delete(answer)
      answer.then(done, done)
    }
    return answer
  }
  return {
    fetch: followed,
    /** Resolves once every request under way has been answered, or after `graceMs`. */
    async settled(graceMs = STOP_GRACE_MS): Promise<void> {
      if (pending.size === 0) return
      let timer: NodeJS.Timeout | undefined
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs)
      })
      await Promise.race([Promise.allSettled([...pending]), grace])
      clearTimeout(timer)
    },
  }
}
