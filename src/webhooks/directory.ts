import type { Change, State } from '../state/seam.js'
import type { WebhookLabRow, WebhookRow } from '../store/records.js'

/**
 * What an event's fan-out reads: each partner's endpoints, the lab armed on an endpoint and the
 * scenario a partner runs under, as committed. `EventBus.record` is synchronous (every area
 * records events with it inside its own transaction), so its fan-out cannot await the seam's
 * reads: it reads this copy instead, a pure derivation of the stored rows kept current by the
 * seam's commit notices and rebuilt after a whole-state replace. Like a store batch before it,
 * the fan-out sees what was committed before its transaction, plus the lab rows that
 * transaction staged itself (several events can reach one lab in one transaction).
 */
export class WebhookDirectory {
  private readonly webhooks = new Map<string, WebhookRow>()
  private readonly byPartner = new Map<string, Map<string, WebhookRow>>()
  private readonly labs = new Map<string, WebhookLabRow>()
  private readonly scenarios = new Map<string, string | null>()
  /** Lab rows a transaction wrote, by the transaction's writer (gone with it). */
  private readonly staged = new WeakMap<object, Map<string, WebhookLabRow>>()
  /** Commits heard while a reload reads: applied on top of what it read. */
  private pending?: (readonly Change[])[]

  private constructor(private readonly state: State) {}

  /** Reads the rows once and follows every commit and replace from then on. */
  static async open(state: State): Promise<WebhookDirectory> {
    const directory = new WebhookDirectory(state)
    state.onCommit((changes) => directory.heard(changes))
    state.onReplace(() => directory.reload())
    await directory.reload()
    return directory
  }

  /** The partner's endpoints, in the order they were created. */
  endpointsOf(partnerId: string): Iterable<WebhookRow> {
    return this.byPartner.get(partnerId)?.values() ?? []
  }

  /** The lab of an endpoint: as `writer` staged it, else as committed. */
  lab(writer: object, webhookId: string): WebhookLabRow | undefined {
    return this.staged.get(writer)?.get(webhookId) ?? this.labs.get(webhookId)
  }

  /** Notes a lab row `writer` wrote, so its next event in the same transaction sees it. */
  stageLab(writer: object, row: WebhookLabRow): void {
    let rows = this.staged.get(writer)
    if (!rows) {
      rows = new Map()
      this.staged.set(writer, rows)
    }
    rows.set(row.id, row)
  }

  /** What the partner's own scenario is named (null: the sandbox default). */
  scenarioOf(partnerId: string): { scenario: string | null } | undefined {
    const scenario = this.scenarios.get(partnerId)
    return scenario === undefined ? undefined : { scenario }
  }

  private async reload(): Promise<void> {
    this.pending = []
    const [webhooks, labs, partners] = await Promise.all([
      this.state.all('webhooks'),
      this.state.all('webhook_labs'),
      this.state.all('partners'),
    ])
    this.webhooks.clear()
    this.byPartner.clear()
    this.labs.clear()
    this.scenarios.clear()
    for (const row of webhooks) this.putWebhook(row)
    for (const row of labs) this.labs.set(row.id, row)
    for (const row of partners) this.scenarios.set(row.id, row.scenario)
    const heard = this.pending
    this.pending = undefined
    for (const changes of heard) this.apply(changes)
  }

  private heard(changes: readonly Change[]): void {
    if (this.pending) this.pending.push(changes)
    else this.apply(changes)
  }

  private apply(changes: readonly Change[]): void {
    for (const { collection, id, row } of changes) {
      if (collection === 'webhooks') {
        if (row) this.putWebhook(row as WebhookRow)
        else this.dropWebhook(id)
      } else if (collection === 'webhook_labs') {
        if (row) this.labs.set(id, row as WebhookLabRow)
        else this.labs.delete(id)
      } else if (collection === 'partners') {
        if (row) this.scenarios.set(id, (row as { scenario: string | null }).scenario)
        else this.scenarios.delete(id)
      }
    }
  }

  /** An update keeps the endpoint's place (endpoints fan out in the order they were created). */
  private putWebhook(row: WebhookRow): void {
    const before = this.webhooks.get(row.id)
    if (before && before.partner_id !== row.partner_id) this.dropWebhook(row.id)
    this.webhooks.set(row.id, row)
    let rows = this.byPartner.get(row.partner_id)
    if (!rows) {
      rows = new Map()
      this.byPartner.set(row.partner_id, rows)
    }
    rows.set(row.id, row)
  }

  private dropWebhook(id: string): void {
    const row = this.webhooks.get(id)
    if (!row) return
    this.webhooks.delete(id)
    const rows = this.byPartner.get(row.partner_id)
    rows?.delete(id)
    if (rows?.size === 0) this.byPartner.delete(row.partner_id)
  }
}
