import { type ControlClientOptions, createTransport } from './http.js'
import { journalQuery, verifyRequests } from './journal.js'
import { partnerHandle, type SandboxPartnerHandle } from './partner.js'
import { rulesArea } from './rules.js'
import { triggerBody } from './trigger-body.js'
import type {
  ControlList,
  CreatedSandboxPartner,
  CreatePartnerOptions,
  Duration,
  InboxFilter,
  JournalFilter,
  SandboxClockState,
  SandboxDelivery,
  SandboxEventEnvelope,
  SandboxFlowEnd,
  SandboxHealth,
  SandboxInboxMessage,
  SandboxJournalEntry,
  SandboxOk,
  SandboxPartnerRecord,
  SandboxScenarioDocument,
  SandboxScenarioSummary,
  SandboxSink,
  SandboxSinkConfig,
  SandboxSnapshot,
  SandboxTriggerResult,
  SandboxWalkedOnboarding,
  TriggerOptions,
  VerifyFilter,
} from './types.js'
import { type WaitForOptions, waitForEvent } from './wait.js'
import { webhookLab } from './webhook-lab.js'

/**
 * A typed client of the sandbox control plane (`/_sandbox`), for any running sandbox: npx,
 * Docker, or in process (`createSandbox().control`). `createPartner` gives a test worker its
 * own isolated partner with helpers scoped to it.
 */
export function createControlClient(url: string, options: ControlClientOptions = {}) {
  const transport = createTransport(url, options)
  const req = transport.request.bind(transport)
  const ok = (method: string, path: string, body?: unknown) =>
    req<SandboxOk>(method, path, { body })

  return {
    url: transport.baseUrl,
    health: () => req<SandboxHealth>('GET', '/_sandbox/health'),
    /** Replaces all state, of every partner, with the fixtures. */
    reset: () => ok('POST', '/_sandbox/reset'),
    snapshot: () => req<SandboxSnapshot>('GET', '/_sandbox/snapshot'),
    restore: (snapshot: SandboxSnapshot) => ok('POST', '/_sandbox/snapshot', snapshot),

    /** A new partner with fresh test credentials, and helpers scoped to it. */
    createPartner: async (partner: CreatePartnerOptions): Promise<SandboxPartnerHandle> =>
      partnerHandle(
        transport,
        await req<CreatedSandboxPartner>('POST', '/_sandbox/partners', { body: partner }),
      ),
    /** Helpers for a partner created elsewhere (its credentials are known only to you). */
    partner: (created: CreatedSandboxPartner): SandboxPartnerHandle =>
      partnerHandle(transport, created),
    partners: {
      /** Oldest first, a page at a time: `limit` 1–500 (default 50), `starting_after` an id. */
      list: (page: { limit?: number; starting_after?: string } = {}) =>
        req<ControlList<SandboxPartnerRecord>>('GET', '/_sandbox/partners', {
          query: { ...page },
        }),
    },

    /** The sandbox-wide clock: moving it moves every partner. */
    clock: {
      get: () => req<SandboxClockState>('GET', '/_sandbox/clock'),
      advance: (by: Duration | { to: string | Date }) =>
        req<SandboxClockState>('POST', '/_sandbox/clock/advance', {
          body: typeof by === 'object' ? { to: new Date(by.to).toISOString() } : { by },
        }),
      freeze: (at?: string | Date) =>
        req<SandboxClockState>('POST', '/_sandbox/clock/freeze', {
          body: at === undefined ? {} : { at: new Date(at).toISOString() },
        }),
      unfreeze: () => req<SandboxClockState>('POST', '/_sandbox/clock/unfreeze'),
    },

    inbox: {
      list: (filter: InboxFilter = {}) =>
        req<ControlList<SandboxInboxMessage>>('GET', '/_sandbox/inbox', { query: { ...filter } }),
      clear: () => req<{ ok: true }>('DELETE', '/_sandbox/inbox'),
    },

    events: {
      list: (filter: { partner_id?: string; type?: string; limit?: number } = {}) =>
        req<ControlList<SandboxEventEnvelope>>('GET', '/_sandbox/events', { query: { ...filter } }),
      /** Emits `type`; `options.overrides` set chosen fields (`{ 'data.object.amount': 12.34 }`). */
      trigger: async (
        partnerId: string,
        type: string,
        object?: Record<string, unknown>,
        options: TriggerOptions = {},
      ) =>
        (
          await req<SandboxTriggerResult>('POST', '/_sandbox/events', {
            body: triggerBody(partnerId, type, object, options),
          })
        ).event,
      waitFor: (partnerId: string, type: string | undefined, options: WaitForOptions = {}) =>
        waitForEvent(transport, partnerId, type, options),
    },

    webhooks: {
      /** Runs every delivery due now and waits for them. */
      flush: () => req<{ attempted: number }>('POST', '/_sandbox/webhooks/flush'),
      /** The webhook lab of an endpoint (its partner API id, wh_…): docs/webhook-lab.md. */
      lab: webhookLab(req),
    },

    requests: {
      find: async (filter: JournalFilter & { limit?: number } = {}) =>
        (
          await req<ControlList<SandboxJournalEntry>>('GET', '/_sandbox/requests', {
            query: journalQuery(filter),
          })
        ).data,
      count: async (filter: JournalFilter = {}) =>
        (
          await req<{ count: number }>('GET', '/_sandbox/requests/count', {
            query: journalQuery(filter),
          })
        ).count,
      /** Did matching requests happen (exactly `times` of them)? If none did, the near misses. */
      verify: (filter: VerifyFilter, options: { times?: number } = {}) =>
        verifyRequests(transport, filter, options),
      clear: () => req<{ ok: true }>('DELETE', '/_sandbox/requests'),
    },

    /** Rules for every partner's requests (a partner's own: `partner(id).rules`). */
    rules: rulesArea(req, '/_sandbox'),

    scenarios: {
      list: () =>
        req<{ default: string; data: SandboxScenarioSummary[] }>('GET', '/_sandbox/scenarios'),
      load: async (scenario: SandboxScenarioDocument) =>
        (
          await req<{ scenario: SandboxScenarioSummary }>('POST', '/_sandbox/scenarios', {
            body: scenario,
          })
        ).scenario,
      setDefault: (name: string) =>
        req<{ default: string }>('PUT', '/_sandbox/scenario', { body: { name } }),
      /** Deletes a loaded scenario (409 while a partner names it). */
      delete: (name: string) =>
        req<SandboxOk>('DELETE', `/_sandbox/scenarios/${encodeURIComponent(name)}`),
    },

    sinks: {
      /** The built-in webhook receiver's URL for `name` (give it to a partner endpoint). */
      url: (name: string) => `${transport.baseUrl}/_sandbox/sink/${encodeURIComponent(name)}`,
      get: (name: string, limit?: number) =>
        req<SandboxSink>('GET', `/_sandbox/sink/${encodeURIComponent(name)}`, {
          query: { limit },
        }),
      configure: (name: string, config: SandboxSinkConfig) =>
        req<SandboxSink['config']>('PUT', `/_sandbox/sink/${encodeURIComponent(name)}/config`, {
          body: config,
        }),
      clear: (name: string) =>
        req<{ ok: true }>('DELETE', `/_sandbox/sink/${encodeURIComponent(name)}`),
    },

    users: {
      expireSessions: (userId: string) =>
        req<{ expired: number }>(
          'POST',
          `/_sandbox/users/${encodeURIComponent(userId)}/sessions/expire`,
        ),
    },

    onboardings: {
      /**
       * Walks the hosted onboarding flow without a browser to `end` (default `passed`), as
       * its user would; the partner's completion then takes the answer's `flow.result`,
       * `flow.data` and `flow.agreementAccepted`.
       */
      walk: (onboardingId: string, end: SandboxFlowEnd = 'passed') =>
        req<SandboxWalkedOnboarding>(
          'POST',
          `/_sandbox/onboardings/${encodeURIComponent(onboardingId)}/walk`,
          { body: { end } },
        ),
    },

    disputes: {
      resolve: (id: string, outcome: 'won' | 'lost') =>
        req<{ dispute: Record<string, unknown> }>(
          'POST',
          `/_sandbox/disputes/${encodeURIComponent(id)}/resolve`,
          { body: { outcome } },
        ),
    },
  }
}

export type ControlClient = ReturnType<typeof createControlClient>
export type { SandboxDelivery }
