import type { Transport } from './http.js'
import type { SandboxLabCheck, SandboxWebhookLabReport } from './types.js'

/** The webhook lab of an endpoint, by the partner API's webhook id (`wh_…`). */
export function webhookLab(req: Transport['request']) {
  const path = (webhookId: string) => `/_sandbox/webhooks/${encodeURIComponent(webhookId)}/lab`
  return {
    /** Arms checks on the endpoint's next events; the report starts over, every check pending. */
    arm: (webhookId: string, checks: SandboxLabCheck[]) =>
      req<SandboxWebhookLabReport>('POST', path(webhookId), { body: { checks } }),
    /** What the receiver answered to each check, and whether that is right. */
    report: (webhookId: string) => req<SandboxWebhookLabReport>('GET', path(webhookId)),
  }
}
