/**
 * The known name a mistyped one most likely meant: the same name in other case, the one name
 * it begins (`--forward` for `--forward-to`), else the closest by edit distance (a swap of two
 * neighbouring letters counts as one edit: `--prot` is one away from `--port`). None when
 * nothing is close enough to be a plausible slip, so a suggestion is never a wild guess.
 */
export function nearest(typed: string, known: readonly string[]): string | undefined {
  const lower = typed.toLowerCase()
  const same = known.find((k) => k.toLowerCase() === lower)
  if (same) return same
  const prefixed = known.filter((k) => k.startsWith(lower))
  if (prefixed.length === 1 && lower.length >= 2) return prefixed[0]
  const limit = Math.max(1, Math.min(3, Math.floor(lower.length / 3)))
  let best: string | undefined
  let bestDistance = limit + 1
  for (const name of known) {
    const d = editDistance(lower, name.toLowerCase())
    if (d < bestDistance) {
      best = name
      bestDistance = d
    }
  }
  return best
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      row[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, at(i - 2, j - 2) + 1)
    }
  }
  return at(a.length, b.length)
}
