/**
 * The ids under one index key, in order, each with its place: a walk starts at either end or
 * just after any id without reading what comes before it (a page of a long history, a cursor).
 * Removal leaves a hole, swept once holes outnumber ids, so adding and removing stay O(1)
 * amortised. A compaction makes new arrays instead of changing the one a walk in progress
 * reads, and so does an insertion in the middle while a walk is under way; the walk skips ids
 * no longer here.
 *
 * With `order` values (a row's `created_at`), the ids are kept sorted by them, ties in the
 * order they were added: rows nearly always come in order, so that is an append; a row dated
 * earlier than the last (a clock moved back) is put in its place, moving the ids dated later.
 */
export class OrderedIds {
  private ids: (string | undefined)[] = []
  private order: string[] | undefined
  /** Each id's place: its index in `ids` plus `base`. */
  private readonly at = new Map<string, number>()
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
    return this.at.size
  }

  has(id: string): boolean {
    return this.at.has(id)
  }

  add(id: string, orderValue = ''): void {
    if (this.at.has(id)) return
    const order = this.order
    const last = order?.[order.length - 1]
    if (order && last !== undefined && orderValue < last) {
      this.insertSorted(id, orderValue)
      return
    }
    this.at.set(id, this.base + this.ids.length)
    this.ids.push(id)
    order?.push(orderValue)
  }

  delete(id: string): void {
    const place = this.at.get(id)
    if (place === undefined) return
    const i = place - this.base
    this.at.delete(id)
    this.ids[i] = undefined
    this.holes++
    if (i === this.head)
      while (this.head < this.ids.length && this.ids[this.head] === undefined) this.head++
    if (this.holes > 16 && this.holes > this.at.size) this.compact()
  }

  first(): string | undefined {
    return this.ids[this.head]
  }

  /**
   * Ids oldest first (newest first with `reverse`), starting just after `after` when given
   * (nothing when `after` is not here).
   */
  *walk(reverse = false, after?: string): Generator<string> {
    const ids = this.ids
    let i = reverse ? ids.length - 1 : this.head
    if (after !== undefined) {
      const place = this.at.get(after)
      if (place === undefined) return
      const from = place - this.base
      i = reverse ? from - 1 : from + 1
    }
    const step = reverse ? -1 : 1
    this.walking++
    try {
      for (; i >= 0 && i < ids.length; i += step) {
        const id = ids[i]
        // Skips holes, and ids removed since a compaction made new arrays during the walk.
        if (id !== undefined && this.at.has(id)) yield id
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
    for (let i = lo; i < this.ids.length; i++) {
      const moved = this.ids[i]
      if (moved !== undefined) this.at.set(moved, this.base + i)
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
    this.at.clear()
    for (let i = 0; i < this.ids.length; i++) this.at.set(this.ids[i] as string, i)
    this.base = 0
    this.holes = 0
    this.head = 0
  }
}
