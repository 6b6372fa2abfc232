import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pageHtml } from './page.js'
import { type CardService, cardService, messageOf, type PartnerCredentials } from './sandbox-api.js'
import { type ReceivedWebhook, verifySignature } from './webhooks.js'

/** What the app remembers of a browser session; the card service's token never leaves it. */
interface AppSession {
  applicant?: Record<string, string>
  email?: string
  sessionToken?: string
}

type Handler = (body: Record<string, unknown>, session: AppSession) => Promise<[number, unknown]>

/**
 * A tiny partner web app: a page on 127.0.0.1 and a backend that calls the card service with
 * the org secret (never sent to the browser), receives its webhooks and verifies them.
 */
export async function startPartnerApp(sandboxUrl: string) {
  const sessions = new Map<string, AppSession>()
  const received: ReceivedWebhook[] = []
  let config: (PartnerCredentials & { webhookSecret: string }) | undefined
  let api: CardService | undefined
  const service = () => {
    if (!api) throw new Error('the app has no partner credentials yet')
    return api
  }
  const bearer = (s: AppSession) => ({ authorization: `Bearer ${s.sessionToken ?? ''}` })

  const routes: Record<string, Handler> = {
    'POST /app/signup': async (body, s) => {
      const { error, response } = await service().POST('/api/v1/partner/auth/register', {
        body: body as never,
      })
      if (error) return [response.status, { error: messageOf(error) }]
      const { password: _password, ...applicant } = body as Record<string, string>
      s.applicant = applicant
      return routes['POST /app/login']?.(body, s) as Promise<[number, unknown]>
    },
    'POST /app/login': async (body, s) => {
      const { email, password } = body as { email: string; password: string }
      const { error, response } = await service().POST('/api/v1/partner/auth/login', {
        body: { email, password },
      })
      if (error) return [response.status, { error: messageOf(error) }]
      s.email = email
      return [200, { otpSent: true }]
    },
    'POST /app/verify': async (body, s) => {
      const { data, error, response } = await service().POST('/api/v1/partner/auth/verify-otp', {
        body: { email: s.email ?? '', code: String(body.code ?? '') },
      })
      if (error) return [response.status, { error: messageOf(error) }]
      s.sessionToken = data.sessionToken
      return [200, { userId: data.user.id }]
    },
    'POST /app/onboarding/start': async (_body, s) => {
      const a = s.applicant ?? {}
      const { data, error, response } = await service().POST('/api/v1/partner/cards/onboarding', {
        headers: bearer(s),
        body: {
          first_name: a.first_name ?? '',
          last_name: a.last_name ?? '',
          email: a.email ?? '',
          phone_number: a.phone_number ?? '',
          country_code: 'US',
          date_of_birth: a.date_of_birth ?? '',
          address_line1: '1 Market St',
          address_city: 'San Francisco',
          address_state: 'CA',
          address_zip: '94105',
          ssn: a.ssn ?? '',
        },
      })
      if (error) return [response.status, { error: messageOf(error) }]
      return [200, { embedUrl: data.data.onboardingEmbedUrl, onboardingId: data.data.onboardingId }]
    },
    'POST /app/onboarding/complete': async (body, s) => {
      const { onboardingId, result, data: payload, agreementAccepted } = body as never
      const { data, error, response } = await service().POST(
        '/api/v1/partner/cards/onboarding/{onboardingId}/complete',
        {
          headers: bearer(s),
          params: { path: { onboardingId } },
          body: { result, data: payload ?? {}, agreement_accepted: agreementAccepted === true },
        },
      )
      if (error) return [response.status, { error: messageOf(error) }]
      return [200, data]
    },
    'POST /app/fund': async (body, s) => {
      const { data, error, response } = await service().POST(
        '/api/v1/partner/cards/simulate-fund',
        {
          headers: bearer(s),
          body: { amount: Number(body.amount) },
        },
      )
      if (error) return [response.status, { error: messageOf(error) }]
      return [200, { availableBalance: data.availableBalance }]
    },
    'GET /app/card': async (_body, s) => {
      const { data, error, response } = await service().GET('/api/v1/partner/cards/status', {
        headers: bearer(s),
      })
      if (error) return [response.status, { error: messageOf(error) }]
      return [200, data.data]
    },
    'GET /app/webhooks': async () => [200, { data: received }],
  }

  const server = createServer(async (req, res) => {
    try {
      await handle(req, res)
    } catch (error) {
      send(res, 500, { error: (error as Error).message })
    }
  })

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const raw = await readBody(req)
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      })
      res.end(pageHtml(new URL(sandboxUrl).origin))
      return
    }
    if (req.method === 'POST' && url.pathname === '/webhooks') {
      const header = req.headers['x-service-signature']
      const verified = !!config && verifySignature(config.webhookSecret, String(header), raw)
      if (!verified) return send(res, 400, { error: 'bad signature' })
      const event = JSON.parse(raw)
      received.push({ id: event.id, type: event.type, verified, object: event.data.object })
      return send(res, 200, { received: true })
    }
    const route = routes[`${req.method} ${url.pathname}`]
    if (!route) return send(res, 404, { error: 'not found' })
    const sid = /(?:^|;\s*)sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1] ?? randomUUID()
    const session = sessions.get(sid) ?? {}
    sessions.set(sid, session)
    res.setHeader('set-cookie', `sid=${sid}; HttpOnly; SameSite=Lax; Path=/`)
    const [status, body] = await route(raw ? JSON.parse(raw) : {}, session)
    send(res, status, body)
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    /** Gives the backend its partner's credentials and webhook signing secret. */
    configure(credentials: PartnerCredentials & { webhookSecret: string }) {
      config = credentials
      api = cardService(sandboxUrl, credentials)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export type PartnerApp = Awaited<ReturnType<typeof startPartnerApp>>

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
