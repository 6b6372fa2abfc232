import { MemoryState } from '../src/state/memory-state.js'
import { defineIndexes } from '../src/store/indexes.js'
import { emptyCollections, ephemeralCollections } from '../src/store/records.js'
import { Store } from '../src/store/store.js'
import { SINK_LIMITS, SinkRegistry } from '../src/webhooks/sink.js'

/** Sinks over a state of their own (memory), with the given caps. */
export async function sinkRegistry(limits = SINK_LIMITS): Promise<SinkRegistry> {
  const store = await Store.open({ seed: emptyCollections, ephemeral: ephemeralCollections })
  defineIndexes(store)
  return new SinkRegistry(new MemoryState(store), limits)
}
