/**
 * The ids under one index key, in order: a walk starts at either end or just after any id
 * (a page of a long history, a cursor). Removal leaves a hole, swept once holes outnumber ids,
 * so adding and removing stay O(1) amortised. A compaction makes new arrays instead of
 * changing the one a walk in progress reads, and so does an insertion in the middle while a
 * walk is under way; the walk skips ids no longer here.
 *
 * With `order` values (a row's `created_at`), the ids are kept sorted by them, ties in the
 * order they were added: rows nearly always come in order, so that is an append; a row dated
 * earlier than the last (a clock moved back) is put in its place, moving the ids dated later.
 *
 * An id's place is found without a map from id to place, which cost more than the id itself
 * (an entry of ~40 bytes per row and per index, more while a ring churns): with order values,
 * by a binary search on the id's value; without, from both ends at once, as ids nearly always
 * go from the front (retention, caps, rings) or the back (a write undone) and cursors read a
 * page from either end. Should finding places cost more than reading the whole list twice
 * over, the map is made after all and kept up from then on (see `scanned`).
 */
export class OrderedIds {
  private ids: (string | undefined)[] = []
  private order: string[] | undefined
  /**
   * Each id's place (its index in `ids` plus `base`), only once searches read more than twice
   * the ids (ids taken from the middle, cursors far from both ends): O(1) from then on.
   */
  private at: Map<string, number> | undefined
  /** Places read by searches so far, while there is no `at`. */
  private scanned = 0
  /** Ids here (holes not counted). */
  private count = 0
  /**
   * How many places were cut off the front of `ids` since the last rebuild: holes that gather
   * in front (the oldest go first) are dropped without giving every id its place again.
   */
  private base = 0
  private holes = 0
  /** Where the first id is: the oldest go first (retention, caps), so holes gather in front. */
  private head = 0
  /**
   * Walks started and not yet ended. The seam's reads run theirs to the end (or break) before
   * they answer, so this is nearly always 0; a walk left unfinished only makes insertions
   * copy the arrays from then on.
   */
  private walking = 0

  constructor(sorted: boolean) {
    if (sorted) this.order = []
  }

  get size(): number {
    return this.count
  }

  /** Whether `id` is here; with order values, `orderValue` is the id's. */
  has(id: string, orderValue = ''): boolean {
    return this.locate(id, orderValue) !== -1
  }

  /** Adds `id`, which must not be here already (the store adds a row once per key). */
  add(id: string, orderValue = ''): void {
    const order = this.order
    const last = order?.[order.length - 1]
    this.count++
    if (order && last !== undefined && orderValue < last) {
      this.insertSorted(id, orderValue)
      return
    }
    this.at?.set(id, this.base + this.ids.length)
    this.ids.push(id)
    order?.push(orderValue)
  }

  /** Removes `id`; with order values, `orderValue` is the one it was added with. */
  delete(id: string, orderValue = ''): void {
    let i = this.locate(id, orderValue)
    // Not under its value: a row changed in place since it was added (stored rows are
    // replaced, not changed, but a miss must not leave the id behind): looked for by id.
    if (i === -1 && this.order) i = this.ids.indexOf(id, this.head)
    if (i === -1) return
    this.at?.delete(id)
    this.ids[i] = undefined
    this.count--
    this.holes++
    if (i === this.head)
      while (this.head < this.ids.length && this.ids[this.head] === undefined) this.head++
    if (this.holes > 16 && this.holes > this.count) this.compact()
  }

  first(): string | undefined {
    return this.ids[this.head]
  }

  /**
   * Ids oldest first (newest first with `reverse`), starting just after `after` when given
   * (nothing when `after` is not here; with order values, `afterValue` is its value).
   */
  *walk(reverse = false, after?: string, afterValue = ''): Generator<string> {
    const ids = this.ids
    const order = this.order
    let i = reverse ? ids.length - 1 : this.head
    if (after !== undefined) {
      const from = this.locate(after, afterValue)
      if (from === -1) return
      i = reverse ? from - 1 : from + 1
    }
    const step = reverse ? -1 : 1
    this.walking++
    try {
      for (; i >= 0 && i < ids.length; i += step) {
        const id = ids[i]
        if (id === undefined) continue
        // Arrays made new since the walk began (a compaction, an insertion) take no holes for
        // what goes after: ids removed since are looked for in the new ones.
        if (ids !== this.ids && !this.has(id, order?.[i])) continue
        yield id
      }
    } finally {
      this.walking--
    }
  }

  /** Puts the ids in order of their values after a bulk fill (stable: ties keep their order). */
  sort(): void {
    const order = this.order
    if (!order) return
    let sorted = true
    for (let i = 1; i < order.length && sorted; i++)
      sorted = (order[i] as string) >= (order[i - 1] as string)
    if (sorted) return
    const pairs = this.live().sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    this.rebuild(pairs)
  }

  /** The index of `id` in `ids`, or -1. */
  private locate(id: string, orderValue: string): number {
    if (this.at) {
      const place = this.at.get(id)
      return place === undefined ? -1 : place - this.base
    }
    const ids = this.ids
    let read = 0
    let found = -1
    const order = this.order
    if (order) {
      // Holes keep their values, so the values stay sorted: the first of `orderValue`, then
      // its ties in the order they were added.
      let lo = this.head
      let hi = order.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if ((order[mid] as string) < orderValue) lo = mid + 1
        else hi = mid
      }
      for (let i = lo; i < ids.length && order[i] === orderValue; i++, read++) {
        if (ids[i] === id) {
          found = i
          break
        }
      }
    } else {
      // From both ends at once: ids nearly always go, and cursors start, near one of them.
      for (let front = this.head, back = ids.length - 1; front <= back; front++, back--) {
        read += 2
        if (ids[front] === id) {
          found = front
          break
        }
        if (ids[back] === id) {
          found = back
          break
        }
      }
    }
    this.scanned += read
    if (this.scanned > 2 * this.ids.length + 1024) this.index()
    return found
  }

  /** Makes `at`: searches read too much (see `scanned`). */
  private index(): void {
    const at = new Map<string, number>()
    for (let i = this.head; i < this.ids.length; i++) {
      const id = this.ids[i]
      if (id !== undefined) at.set(id, this.base + i)
    }
    this.at = at
  }

  private insertSorted(id: string, orderValue: string): void {
    const order = this.order as string[]
    // After every value <= orderValue (holes keep theirs, so the values stay sorted): ties
    // keep the order they were added in.
    let lo = 0
    let hi = order.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((order[mid] as string) <= orderValue) lo = mid + 1
      else hi = mid
    }
    // Only the ids after the place move: the few dated later than the new row (a delivery
    // finished before one made just earlier, a clock moved back). In place, unless a walk is
    // under way: then new arrays, and the walk keeps its own. Copying every time cost a
    // partner at its 10,000 finished deliveries two arrays of 10,000 per delivery.
    if (this.walking === 0) {
      this.ids.splice(lo, 0, id)
      order.splice(lo, 0, orderValue)
    } else {
      this.ids = [...this.ids.slice(0, lo), id, ...this.ids.slice(lo)]
      this.order = [...order.slice(0, lo), orderValue, ...order.slice(lo)]
    }
    if (lo < this.head) this.head = lo
    const at = this.at
    if (at === undefined) return
    for (let i = lo; i < this.ids.length; i++) {
      const moved = this.ids[i]
      if (moved !== undefined) at.set(moved, this.base + i)
    }
  }

  private compact(): void {
    // Every hole in front (a ring's slots written again, retention or a cap taking the oldest):
    // new arrays without them, and every id keeps its place. At the cap, each new row removed
    // the oldest and a full rebuild every `size` removals gave every id its place again.
    if (this.holes === this.head) {
      this.ids = this.ids.slice(this.head)
      if (this.order) this.order = this.order.slice(this.head)
      this.base += this.head
      this.holes = 0
      this.head = 0
      return
    }
    this.rebuild(this.live())
  }

  private live(): [string, string][] {
    const pairs: [string, string][] = []
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i]
      if (id !== undefined) pairs.push([id, this.order?.[i] ?? ''])
    }
    return pairs
  }

  /** New arrays, never the old ones changed: a walk in progress keeps reading its own. */
  private rebuild(pairs: [string, string][]): void {
    this.ids = pairs.map((p) => p[0])
    if (this.order) this.order = pairs.map((p) => p[1])
    this.base = 0
    this.holes = 0
    this.head = 0
    if (this.at) this.index()
  }
}
