import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import createClient from 'openapi-fetch'
import { createSandbox } from 'partner-sandbox'
import type { paths } from 'partner-sandbox/openapi'
import { Webhook } from 'standardwebhooks'
import { afterEach, expect, it } from 'vitest'

/**
 * A partner app's webhook receiver, tested with the sandbox's webhook lab (docs/webhook-lab.md)
 * and events with chosen data (docs/events.md). The receiver is the app's own code: it
 * verifies the Standard Webhooks signature (which also refuses timestamps older than 5
 * minutes), answers 2xx to an event it has already handled, and acts once per event id.
 */
const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close()
})

/** The app: what it did for each event id (a real app would write this to its database). */
function webhookApp(secret: () => string) {
  const handled = new Map<string, { type: string; object: Record<string, unknown> }>()
  const receive = (body: string, headers: IncomingHttpHeaders): number => {
    let event: { id: string; type: string; data: { object: Record<string, unknown> } }
    try {
      event = new Webhook(secret().replace(/^whsec_/, '')).verify(
        body,
        headers as Record<string, string>,
      ) as typeof event
    } catch {
      return 401 // forged, tampered or replayed: refuse, do nothing
    }
    if (handled.has(event.id)) return 200 // a duplicate: acknowledge, do not act twice
    handled.set(event.id, { type: event.type, object: event.data.object })
    return 200
  }
  return { handled, receive }
}

async function listen(receive: (body: string, headers: IncomingHttpHeaders) => number) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => res.writeHead(receive(Buffer.concat(chunks).toString(), req.headers)).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`
}

async function setup() {
  const sandbox = await createSandbox({ logLevel: 'silent' })
  cleanup.push(sandbox.close)
  const partner = await sandbox.control.createPartner({ name: 'Receiver tests' })
  const api = createClient<paths>({
    baseUrl: 'http://sandbox.test',
    headers: partner.headers,
    fetch: async (request) => sandbox.fetch(request),
  })
  let secret = ''
  const app = webhookApp(() => secret)
  const url = await listen(app.receive)
  const created = await api.POST('/api/v1/partner/webhooks', { body: { url, events: [] } })
  if (!created.data) throw new Error(`no endpoint: ${JSON.stringify(created.error)}`)
  secret = created.data.secret
  return { sandbox, partner, api, app, webhookId: created.data.webhook.id }
}

it("a receiver that passes the lab's report", async () => {
  const { sandbox, partner, app, webhookId } = await setup()
  await sandbox.control.webhooks.lab.arm(webhookId, [
    'duplicate',
    'out_of_order',
    'forged_signature',
    'replay',
  ])
  // Two events: the first is held and delivered after the second (out_of_order), then sent
  // again (duplicate), forged and replayed.
  const first = await partner.webhooks.trigger('webhook.test', { message: 'first' })
  await partner.webhooks.trigger('webhook.test', { message: 'second' })
  await sandbox.control.webhooks.flush()

  const report = await sandbox.control.webhooks.lab.report(webhookId)
  for (const check of report.checks) expect(check.verdict, check.why).toBe('pass')
  // And the app acted once per event, though it received the first four times.
  expect([...app.handled.keys()]).toHaveLength(2)
  expect(app.handled.has(first.id)).toBe(true)
})

it('an event with chosen data reaches the app as chosen', async () => {
  const { sandbox, partner, app, api } = await setup()
  const registered = await api.POST('/api/v1/partner/auth/register', {
    body: {
      email: 'rita@example.test',
      password: 'Receiver-Passw0rd!',
      phone_number: '+14155550101',
      first_name: 'Rita',
      last_name: 'Receiver',
      ssn: '123-45-6789',
      date_of_birth: '1990-01-01',
    },
  })
  expect(registered.response.status).toBe(201)
  // The user's real user.created event, sent again with fields chosen (docs/events.md).
  const event = await partner.webhooks.trigger('user.created', undefined, {
    overrides: { 'data.object.metadata': { plan: 'gold' }, 'data.object.first_name': 'Chosen' },
  })
  await sandbox.control.webhooks.flush()
  expect(app.handled.get(event.id)?.object).toMatchObject({
    email: 'rita@example.test',
    first_name: 'Chosen',
    metadata: { plan: 'gold' },
  })
})
