import { callSandbox, type Remote } from './remote.js'

/**
 * `partner-sandbox trigger <event> [--partner KEY]`: the partner is named by its API key (what
 * a developer has at hand); the sandbox makes the event from that partner's real state.
 */
export async function trigger(remote: Remote, type: string, partnerKey: string): Promise<string> {
  const partner = await partnerWithKey(remote, partnerKey)
  if (!partner) throw new Error(`no partner has the API key ${partnerKey} in ${remote.url}`)
  const { event } = (await callSandbox(remote, 'POST', '/_sandbox/events', {
    as: 'admin',
    body: { partner_id: partner.id, type },
  })) as { event: { id: string; type: string; data: { object: { id?: string } } } }
  const object = event.data.object.id ? ` (${event.data.object.id})` : ''
  return `Triggered ${event.type} ${event.id} for ${partner.slug}${object}`
}

type ListedPartner = { id: string; api_key: string; slug: string }

/** Reads the partners list a page at a time until one has the key. */
async function partnerWithKey(remote: Remote, key: string): Promise<ListedPartner | undefined> {
  let after = ''
  for (;;) {
    const page = await callSandbox(remote, 'GET', `/_sandbox/partners?limit=500${after}`, {
      as: 'admin',
    })
    const partners = page.data as ListedPartner[]
    const found = partners.find((p) => p.api_key === key)
    if (found || !page.has_more || partners.length === 0) return found
    after = `&starting_after=${(partners.at(-1) as ListedPartner).id}`
  }
}
