import type { Random } from '../random.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { EventBus } from './events.js'
import type { PartnerClocks } from './partner-clocks.js'

/**
 * The pieces the money rules (cards, ledger, funding, purchases, disputes) work with besides
 * the transaction they write in. Each rule takes the `Pick` it uses, so another area can call
 * it inside its own transaction with whatever holds these (its own service's parts).
 */
export interface MoneyKernel {
  clocks: PartnerClocks
  random: Random
  events: EventBus
  scenarios: ScenarioRegistry
}
