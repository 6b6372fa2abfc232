/**
 * A JSON text made earlier, sent by `c.json` as it is (fast-path.ts) instead of being
 * serialized again. Anything else that serializes it (hono's own c.json, when a route set
 * headers of its own) gets the same JSON through `toJSON`.
 */
export class SerializedJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}

/**
 * The own version of an answer made from its `basis` row alone: it counts for as long as that
 * very row object is the one read, whatever else is written.
 */
export const ROW_ONLY = 0

/** At most this many answers, and this many characters in all, are kept. */
const MAX_ENTRIES = 256
const MAX_CHARS = 4 * 1024 * 1024

/**
 * Serialized answers kept while `version()` (the store's write counter) stands still, so a
 * page read again and again is serialized once: for a 20-row page, serializing is most of
 * the request, and every fresh 11 KB body outlives the request in the request journal,
 * which makes the garbage collector copy it. Any write anywhere moves the version, so an
 * answer can never be older than the rows it was made from; it must depend on the rows and
 * `key` alone (no clock; the request origin, if used, in the key). When `build` works from a
 * row read earlier in the request (before an await, during which another request may have
 * written), that row is the `basis`: an answer counts only for the very same row object
 * (a write puts a new one). A call may give its own `version` instead, one that moves with
 * every change of what the answer depends on and never goes back (Store.keyVersion: the last
 * write to one user's transactions), so writes elsewhere do not discard it. Bounded in
 * entries and characters: over either bound the cache starts over.
 */
export function serializedCache(version: () => number) {
  const cache = new Map<
    string,
    { version: number; basis: object | undefined; json: SerializedJson }
  >()
  let chars = 0
  /**
   * The kept answer of `key` when it still counts, else undefined: a route whose answer is
   * kept under its own version asks this first, and reads its rows only on a miss.
   */
  const kept = <T>(key: string, basis?: object, ownVersion?: number): T | undefined => {
    const hit = cache.get(key)
    return hit?.version === (ownVersion ?? version()) && hit.basis === basis
      ? (hit.json as unknown as T)
      : undefined
  }
  const answer = <T>(key: string, build: () => T, basis?: object, ownVersion?: number): T => {
    const now = ownVersion ?? version()
    const hit = cache.get(key)
    if (hit?.version === now && hit.basis === basis) return hit.json as unknown as T
    if (hit) {
      cache.delete(key)
      chars -= hit.json.text.length
    }
    const json = new SerializedJson(JSON.stringify(build()))
    if (cache.size >= MAX_ENTRIES || chars + json.text.length > MAX_CHARS) {
      cache.clear()
      chars = 0
    }
    if (json.text.length <= MAX_CHARS) {
      cache.set(key, { version: now, basis, json })
      chars += json.text.length
    }
    return json as unknown as T
  }
  return Object.assign(answer, { kept })
}
