/**
 * Paths longer than this are looked up every time (by the router and the access table): a
 * cache of 16 KB URLs would hold megabytes.
 */
export const MAX_CACHED_PATH = 256

/**
 * Answers kept by method, then path, for lookups that depend on those two alone (the cached
 * router's matches, the access table's answers): two map reads a request, and no
 * `${method} ${path}` key made per request. Bounded: it starts over once it holds `capacity`
 * answers; a path longer than MAX_CACHED_PATH is answered by `make` every time.
 */
export class MethodPathCache<V> {
  private readonly byMethod = new Map<string, Map<string, V>>()
  private size = 0

  constructor(
    private readonly make: (method: string, path: string) => V,
    private readonly capacity = 1000,
  ) {}

  get(method: string, path: string): V {
    if (path.length > MAX_CACHED_PATH) return this.make(method, path)
    let paths = this.byMethod.get(method)
    let value = paths?.get(path)
    if (value === undefined) {
      value = this.make(method, path)
      if (this.size >= this.capacity) {
        this.clear()
        paths = undefined
      }
      if (paths === undefined) {
        paths = new Map()
        this.byMethod.set(method, paths)
      }
      paths.set(path, value)
      this.size++
    }
    return value
  }

  clear(): void {
    this.byMethod.clear()
    this.size = 0
  }
}
