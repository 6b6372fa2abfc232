import { callSandbox, type Remote } from './remote.js'

/**
 * `partner-sandbox trigger <event> [--partner KEY]`: the partner is named by its API key (what
 * a developer has at hand); the sandbox makes the event from that partner's real state.
 */
export async function trigger(remote: Remote, type: string, partnerKey: string): Promise<string> {
  const partners = (await callSandbox(remote, 'GET', '/_sandbox/partners', { as: 'admin' }))
    .data as { id: string; api_key: string; slug: string }[]
  const partner = partners.find((p) => p.api_key === partnerKey)
  if (!partner) throw new Error(`no partner has the API key ${partnerKey} in ${remote.url}`)
  const { event } = (await callSandbox(remote, 'POST', '/_sandbox/events', {
    as: 'admin',
    body: { partner_id: partner.id, type },
  })) as { event: { id: string; type: string; data: { object: { id?: string } } } }
  const object = event.data.object.id ? ` (${event.data.object.id})` : ''
  return `Triggered ${event.type} ${event.id} for ${partner.slug}${object}`
}
