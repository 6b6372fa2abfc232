import { indexDefs } from '../state/indexes.js'
import type { Store } from './store.js'

export { bucketKey, dayOf, hourOf, openCodeKey } from '../state/indexes.js'

/** Registers every declared index (state/indexes.ts) on the store. */
export function defineIndexes(store: Store): void {
  for (const [name, def] of Object.entries(indexDefs)) store.defineIndex(name, def as never)
}
