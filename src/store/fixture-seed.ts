import { type CollectionsData, collectionNames, emptyCollections } from './records.js'

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
  // The rows are as JSON.parse makes them (loadFixtures sees to it): V8 freezes those in
  // place, where objects built by spreads became dictionaries twice their size.
  for (const name of collectionNames) {
    const rows = fixtures[name] as Record<string, unknown>
    for (const id in rows) deepFreeze(rows[id])
    Object.freeze(rows)
  }
  return () => {
    const copy = emptyCollections()
    for (const name of collectionNames) Object.assign(copy[name], fixtures[name])
    return copy
  }
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  Object.freeze(value)
  for (const key in value) deepFreeze((value as Record<string, unknown>)[key])
  return value
}
