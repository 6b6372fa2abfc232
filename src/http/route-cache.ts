import type { Result, Router } from 'hono/router'
import { RegExpRouter } from 'hono/router/reg-exp-router'
import { SmartRouter } from 'hono/router/smart-router'
import { TrieRouter } from 'hono/router/trie-router'

/** Paths longer than this are matched every time: a cache of 16 KB URLs would hold megabytes. */
const MAX_CACHED_PATH = 256

/**
 * hono's default router with the answers remembered per method and path. Our route table
 * makes hono fall back from its RegExpRouter to the TrieRouter (a static segment beside a
 * parameter, `/webhooks/events` and `/webhooks/{id}`), whose search splits the path and walks
 * the tree on every request: a tenth of the work of an authenticated GET. A match depends on
 * the method, the path and the table alone, and hono only reads it (RegExpRouter itself hands
 * out the same result for every request to a static path), so it can be reused. Bounded: the
 * cache starts over when it holds `capacity` paths, and any route added empties it.
 */
export class CachedRouter<T> implements Router<T> {
  readonly name: string
  private readonly cache = new Map<string, Result<T>>()

  constructor(
    private readonly inner: Router<T> = new SmartRouter({
      routers: [new RegExpRouter(), new TrieRouter()],
    }),
    private readonly capacity = 1000,
  ) {
    this.name = `CachedRouter(${inner.name})`
  }

  add(method: string, path: string, handler: T): void {
    this.cache.clear()
    this.inner.add(method, path, handler)
  }

  match(method: string, path: string): Result<T> {
    if (path.length > MAX_CACHED_PATH) return this.inner.match(method, path)
    const key = `${method} ${path}`
    let result = this.cache.get(key)
    if (result === undefined) {
      result = this.inner.match(method, path)
      if (this.cache.size >= this.capacity) this.cache.clear()
      this.cache.set(key, result)
    }
    return result
  }
}
