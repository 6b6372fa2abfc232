import {
  type CollectionName,
  type CollectionsData,
  collectionNames,
  emptyCollections,
} from './records.js'

/**
 * The seed of a new store and of every reset: the fixtures' rows, deeply frozen, shared by
 * every copy. Each call hands out new collection objects holding the same rows; the store
 * replaces a row on every write and never changes one in place, so the fixtures stay exactly
 * as loaded however the live rows change. A `structuredClone` per call kept a second full
 * object graph beside the live one: at 100k fixture users, about 100 MB that did nothing.
 * Freezing makes "never changed in place" a guarantee: a write to a fixture row throws
 * instead of silently changing what the next reset restores.
 */
export function fixtureSeed(fixtures: CollectionsData): () => CollectionsData {
  // Kept as two lists per collection (8 bytes a row each), not as a second 100k-key object.
  const pristine: { name: CollectionName; ids: string[]; rows: unknown[] }[] = []
  for (const name of collectionNames) {
    const byId = fixtures[name] as Record<string, { id: string }>
    // The keys' own strings: the id in each row becomes the same string (one copy, not two).
    const ids = Object.keys(byId)
    const rows: unknown[] = []
    for (const id of ids) {
      const row = byId[id] as { id: string }
      row.id = id
      // As JSON.parse made it (loadFixtures sees to it): V8 freezes those in place, where
      // objects built by spreads became dictionaries twice their size.
      rows.push(deepFreeze(row))
    }
    pristine.push({ name, ids, rows })
  }
  return () => {
    const copy = emptyCollections()
    for (const { name, ids, rows } of pristine) {
      const into = copy[name] as Record<string, unknown>
      for (let i = 0; i < ids.length; i++) into[ids[i] as string] = rows[i]
    }
    return copy
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  Object.freeze(value)
  for (const key in value) deepFreeze((value as Record<string, unknown>)[key])
  return value
}
