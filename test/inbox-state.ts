import { Inbox } from '../src/domain/inbox.js'
import { MemoryState } from '../src/state/memory-state.js'
import { defineIndexes } from '../src/store/indexes.js'
import { emptyCollections, ephemeralCollections } from '../src/store/records.js'
import { Store } from '../src/store/store.js'

/** An inbox over a state of its own, as a sandbox holds it (an ephemeral collection). */
export async function inboxOf(capacity: number): Promise<Inbox> {
  const store = await Store.open({ seed: emptyCollections, ephemeral: ephemeralCollections })
  defineIndexes(store)
  return new Inbox({ state: new MemoryState(store), capacity })
}
