import type { CredentialCache } from '../domain/credential-cache.js'
import type { EventBus } from '../domain/events.js'
import { authenticatePartner } from '../domain/partner-auth.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import {
  checkNewPartner,
  insertPartner,
  type NewPartnerInput,
  newCredentials,
  type PartnerPatch,
  partnersPage,
  patchPartner,
  storeRotatedCredentials,
  usage,
  usageSince,
} from '../domain/partners.js'
import type { Random } from '../random.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { State } from '../state/seam.js'
import type { PartnerRow } from '../store/records.js'
import { finishedSince } from '../webhooks/finished-count.js'
import { assertNotSelf, type SelfTarget } from '../webhooks/self-target.js'
import { syncPrimaryEndpoint } from '../webhooks/subscriptions.js'

export interface PartnersParts {
  state: State
  random: Random
  clocks: PartnerClocks
  events: EventBus
  scenarios: ScenarioRegistry
  credentials: CredentialCache
  /** How many endpoints a partner may have (`--webhook-limit`), the primary one included. */
  webhookLimit: number
  /** The sandbox's own address, which `webhook_url` may not point at (but its sink). */
  self: Pick<SelfTarget, 'reason'>
}

/** Partner organizations: their credentials, their record, and the control plane's partners. */
export class Partners {
  /** What the primary endpoint's upkeep reads. */
  private readonly endpoints: Parameters<typeof syncPrimaryEndpoint>[0]

  constructor(private readonly s: PartnersParts) {
    this.endpoints = { clocks: s.clocks, random: s.random, webhookLimit: s.webhookLimit }
  }

  /** Layer 1 of spec section 5: the organization credentials of a request. */
  authenticate(key: string | undefined, secret: string | undefined): Promise<PartnerRow> {
    return authenticatePartner(this.s, key, secret)
  }

  update(partner: PartnerRow, patch: PartnerPatch): Promise<PartnerRow> {
    if (patch.webhook_url) assertNotSelf(this.s.self, patch.webhook_url, 'webhook_url')
    return this.s.state.transaction(
      async (tx) => {
        const next = await patchPartner(this.s, tx, partner, patch)
        await syncPrimaryEndpoint(this.endpoints, tx, next)
        return next
      },
      { partner: partner.id },
    )
  }

  /** Replaces key and secret; the previous pair fails from the next request on. */
  async rotateCredentials(partnerId: string) {
    const { api_key, api_secret, api_secret_hash } = await newCredentials(this.s.random)
    await this.s.state.transaction(
      (tx) => storeRotatedCredentials(this.s, tx, partnerId, { api_key, api_secret_hash }),
      { partner: partnerId },
    )
    return { api_key, api_secret }
  }

  async usage(partner: PartnerRow) {
    const own = this.s.state.tenant(partner.id)
    const deliveries = await finishedSince(own, partner.id, usageSince(this.s, partner.id))
    return usage(own, partner, deliveries)
  }

  /** A new active partner with fresh test credentials, and its primary endpoint's secret. */
  async create(input: NewPartnerInput) {
    if (input.webhook_url) assertNotSelf(this.s.self, input.webhook_url, 'webhook_url')
    await checkNewPartner(this.s, this.s.state, input)
    const { api_key, api_secret, api_secret_hash } = await newCredentials(this.s.random)
    return this.s.state.transaction(async (tx) => {
      const partner = await insertPartner(this.s, tx, input, { api_key, api_secret_hash })
      const webhook_secret = await syncPrimaryEndpoint(this.endpoints, tx, partner)
      return { partner, api_key, api_secret, webhook_secret }
    })
  }

  /** A page of every partner, oldest first (partnersPage). */
  page(query: { limit: number; starting_after?: string }) {
    return partnersPage(this.s.state, query)
  }
}
