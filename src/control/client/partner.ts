import { NotFoundInSandboxError } from './errors.js'
import type { Transport } from './http.js'
import { journalQuery, verifyRequests } from './journal.js'
import { rulesArea } from './rules.js'
import { triggerBody } from './trigger-body.js'
import type {
  CreatedSandboxPartner,
  Duration,
  JournalFilter,
  PartnerClockState,
  PartnerPatch,
  SandboxEventEnvelope,
  SandboxInboxMessage,
  SandboxJournalEntry,
  SandboxOk,
  SandboxPartnerRecord,
  SandboxPartnerSnapshot,
  SandboxTriggerResult,
  TriggerOptions,
  VerifyFilter,
} from './types.js'
import { type WaitForOptions, waitForEvent } from './wait.js'
import { webhookLab } from './webhook-lab.js'

/**
 * One partner, as a test worker uses it: its credentials, ready headers, and helpers scoped
 * to it (its own clock, reset, snapshot, inbox, events, journal, rules and scenario).
 */
export function partnerHandle(transport: Transport, created: CreatedSandboxPartner) {
  const id = created.partner.id
  const base = `/_sandbox/partners/${encodeURIComponent(id)}`
  const req = transport.request.bind(transport)
  const moveBody = (by: Duration | { to: string | Date }) =>
    typeof by === 'object' ? { to: new Date(by.to).toISOString() } : { by }

  return {
    id,
    partner: created.partner,
    apiKey: created.api_key,
    apiSecret: created.api_secret,
    /** Signing secret of the primary endpoint, when the partner was created with webhook_url. */
    webhookSecret: created.webhook_secret,
    /** The organization headers of every partner API request (spec section 5). */
    headers: { 'X-Partner-Key': created.api_key, 'X-Partner-Secret': created.api_secret },
    /** The partner API's base URL: `${apiBase}/partner/me`. */
    apiBase: `${transport.baseUrl}/api/v1`,

    clock: {
      state: () => req<PartnerClockState>('GET', `${base}/clock`),
      /** This partner's current time. */
      now: async () => new Date((await req<PartnerClockState>('GET', `${base}/clock`)).now),
      /** Moves only this partner's time (by a duration, or to a time); its due work runs first. */
      advance: (by: Duration | { to: string | Date }) =>
        req<PartnerClockState>('POST', `${base}/clock/advance`, { body: moveBody(by) }),
      freeze: (at?: string | Date) =>
        req<PartnerClockState>('POST', `${base}/clock/freeze`, {
          body: at === undefined ? {} : { at: new Date(at).toISOString() },
        }),
      unfreeze: () => req<PartnerClockState>('POST', `${base}/clock/unfreeze`),
    },

    /** Removes this partner's users, cards, money, webhooks and events; keeps its credentials. */
    reset: () => req<SandboxOk>('POST', `${base}/reset`),
    /** Removes the partner. */
    delete: () => req<SandboxOk>('DELETE', base),
    snapshot: () => req<SandboxPartnerSnapshot>('GET', `${base}/snapshot`),
    restore: (snapshot: SandboxPartnerSnapshot) =>
      req<SandboxOk>('POST', `${base}/snapshot`, { body: snapshot }),
    /** Status (suspend, revoke, reactivate), scenario or rate limit. */
    update: (patch: PartnerPatch) => req<SandboxPartnerRecord>('PATCH', base, { body: patch }),

    inbox: {
      list: (filter: { email?: string; kind?: SandboxInboxMessage['kind']; limit?: number } = {}) =>
        req<{ data: SandboxInboxMessage[]; has_more: boolean }>('GET', '/_sandbox/inbox', {
          query: { ...filter, partner_id: id },
        }),
      /**
       * The newest code sent to `email` (a login code unless `kind` says otherwise), while it
       * can be used: the inbox no longer shows a used or expired one.
       */
      latestCode: async (
        email: string,
        options: { kind?: SandboxInboxMessage['kind'] } = {},
      ): Promise<string> => {
        const kind = options.kind ?? 'login_code'
        const { data } = await req<{ data: SandboxInboxMessage[] }>('GET', '/_sandbox/inbox', {
          query: { email, kind, partner_id: id, limit: 1 },
        })
        const message = data[0]
        if (!message) throw new NotFoundInSandboxError(`No ${kind} was sent to ${email}.`)
        if (message.code === null) {
          throw new NotFoundInSandboxError(
            `The newest ${kind} sent to ${email} was ${message.code_ended ?? 'used or expired'}; send another.`,
          )
        }
        return message.code
      },
    },

    webhooks: {
      /** The webhook lab of one of this partner's endpoints (wh_…): docs/webhook-lab.md. */
      lab: webhookLab(req),
      /** The first event of `type` (`card.created`, or `card.*`), without polling. */
      waitFor: async (type: string | undefined, options: WaitForOptions = {}) =>
        (await waitForEvent(transport, id, type, options)).event,
      /** As waitFor, until a delivery of the event to the partner's endpoint succeeded. */
      waitForDelivery: (type: string | undefined, options: WaitForOptions = {}) =>
        waitForEvent(transport, id, type, { ...options, delivered: true }),
      /** The partner's events, newest first. */
      events: (filter: { type?: string; limit?: number } = {}) =>
        req<{ data: SandboxEventEnvelope[]; has_more: boolean }>('GET', '/_sandbox/events', {
          query: { ...filter, partner_id: id },
        }),
      /** The newest event, if any: pass its id as `after` to wait only for later ones. */
      latest: async (): Promise<SandboxEventEnvelope | null> => {
        const { data } = await req<{ data: SandboxEventEnvelope[] }>('GET', '/_sandbox/events', {
          query: { partner_id: id, limit: 1 },
        })
        return data[0] ?? null
      },
      /**
       * Emits `type` with `object`, or without it a real one from the partner's state;
       * `options.overrides` set chosen fields (`{ 'data.object.amount': 12.34 }`).
       */
      trigger: async (
        type: string,
        object?: Record<string, unknown>,
        options: TriggerOptions = {},
      ) =>
        (
          await req<SandboxTriggerResult>('POST', '/_sandbox/events', {
            body: triggerBody(id, type, object, options),
          })
        ).event,
    },

    requests: {
      /** This partner's journaled requests, newest first. */
      find: async (filter: Omit<JournalFilter, 'partner_id'> & { limit?: number } = {}) =>
        (
          await req<{ data: SandboxJournalEntry[] }>('GET', '/_sandbox/requests', {
            query: journalQuery({ ...filter, partner_id: id }),
          })
        ).data,
      count: async (filter: Omit<JournalFilter, 'partner_id'> = {}) =>
        (
          await req<{ count: number }>('GET', '/_sandbox/requests/count', {
            query: journalQuery({ ...filter, partner_id: id }),
          })
        ).count,
      /** Did this partner make matching requests (exactly `times`)? If none, the near misses. */
      verify: (filter: Omit<VerifyFilter, 'partner_id'>, options: { times?: number } = {}) =>
        verifyRequests(transport, { ...filter, partner_id: id }, options),
    },

    /** Rules for this partner's matching API requests: answers, delays, drops, decisions. */
    rules: rulesArea(req, base),

    scenario: {
      /** Gives the partner a scenario by name (null: back to the sandbox-wide one). */
      use: (name: string | null) =>
        req<SandboxPartnerRecord>('PATCH', base, { body: { scenario: name } }),
    },
  }
}

export type SandboxPartnerHandle = ReturnType<typeof partnerHandle>
