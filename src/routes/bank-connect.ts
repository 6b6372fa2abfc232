import { OpenAPIHono, z } from '@hono/zod-openapi'
import { exactOrigins, originPatterns, partnerOrigins } from '../domain/allowed-origins.js'
import { ConnectLinkError, institutions, publicBankAccount } from '../domain/bank-connect.js'
import { ListQuery, pageOf, paginate } from '../domain/pagination.js'
import { PartnerUnavailableError, unavailablePage } from '../domain/partner-status.js'
import { bankConnectPage, bankConnectPageExample } from '../hosted/bank-connect-page.js'
import { warnIfFramingRefused } from '../hosted/frame-check.js'
import {
  errorPageExample,
  hostedErrorPage,
  htmlResponse,
  setHostedPageHeaders,
} from '../hosted/page-headers.js'
import { attributePartner } from '../hosted/partner-attribution.js'
import { accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import type { Logger } from '../logger.js'
import type { TagName } from '../openapi/tags.js'
import type { Random } from '../random.js'
import { envelope } from '../schemas/cards.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import { BankAccountId } from '../schemas/ids.js'
import { BankAccount, EnrollBody } from '../schemas/money.js'
import type { BankConnect } from '../services/bank-connect.js'
import type { ConnectTokenRow } from '../store/records-money.js'

const tags: TagName[] = ['External bank accounts']

const linkPages = {
  missing: ['Link incomplete', 400],
  unknown: ['Link not valid', 404],
  used: ['Link already used', 410],
  expired: ['Link expired', 410],
} as const

const connectToken = 'bct_5kq2m9x4r8t1.bctok_Vd3pQ7sLx2Nw9Zr4Tb6Ym1Kc8Hf5Jg0Ae'
// The parameter's own example too: Dredd reads only that one to build a request.
const connectTokenParam = z
  .string()
  .min(1)
  .openapi({
    description: 'The `connect_token` of POST /external-bank-account-connect/token.',
    example: connectToken,
    param: { example: connectToken },
  })

export function bankConnectRoutes(s: { bankConnect: BankConnect; random: Random; logger: Logger }) {
  const { bankConnect } = s
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    accessRoute('session', {
      method: 'post',
      path: '/external-bank-account-connect/token',
      operationId: 'createBankConnectToken',
      tags,
      summary: 'Create a bank-connect token and the URL of the hosted connect page',
      description: 'The token works once and for 15 minutes.',
      responses: {
        201: jsonResponse(
          envelope(
            z
              .object({ connect_token: z.string(), connect_url: z.url(), expires_at: z.string() })
              .openapi({
                example: {
                  connect_token: 'bct_5kq2m9x4r8t1.bctok_Vd3pQ7sLx2Nw9Zr4Tb6Ym1Kc8Hf5Jg0Ae',
                  connect_url:
                    'http://127.0.0.1:4010/api/v1/external-bank-account-connect/connect?token=bct_5kq2m9x4r8t1.bctok_Vd3pQ7sLx2Nw9Zr4Tb6Ym1Kc8Hf5Jg0Ae',
                  expires_at: '2026-03-02T12:45:00.000Z',
                },
              }),
            'BankConnectSession',
          ),
          'The connect session.',
        ),
        ...errorResponses(...orgErrors),
      },
    }),
    async (c) =>
      c.json({ success: true as const, data: await bankConnect.createSession(c.get('user')) }, 201),
  )

  // The public hosted page (spec section 4: no credentials): its failures are HTML pages a
  // person reads, with the status a link checker or a test expects, never a 401.
  app.openapi(
    accessRoute('public', {
      method: 'get',
      path: '/external-bank-account-connect/connect',
      operationId: 'openBankConnectPage',
      tags,
      summary: 'The hosted bank-connect page (public: the token in its URL is the credential)',
      description:
        'Open `connect_url` in a browser, iframe or WebView. A missing token is a 400 page, an unknown one a 404 page, a used or expired one a 410 page, a suspended or revoked partner a 403 page.',
      request: { query: z.object({ token: connectTokenParam }) },
      responses: {
        200: htmlResponse('The page: pick a bank, then an account.', bankConnectPageExample),
        400: htmlResponse('The link has no token.', errorPageExample('Link incomplete')),
        403: htmlResponse(
          "The link's partner account is suspended or revoked.",
          errorPageExample('Service unavailable'),
        ),
        404: htmlResponse(
          'The token is not one the sandbox issued.',
          errorPageExample('Link not valid'),
        ),
        410: htmlResponse(
          'The link was already used or has expired.',
          errorPageExample('Link expired'),
        ),
      },
    }),
    async (c) => {
      const token = c.req.valid('query').token
      let session: ConnectTokenRow
      try {
        session = await bankConnect.openSession(token)
      } catch (error) {
        if (error instanceof PartnerUnavailableError) {
          return hostedErrorPage(c, unavailablePage.title, unavailablePage.message, 403)
        }
        if (!(error instanceof ConnectLinkError)) throw error
        const [title, status] = linkPages[error.reason]
        return hostedErrorPage(c, title, error.message, status)
      }
      const partner = await bankConnect.partnerOf(session.partner_id)
      if (partner) attributePartner(c, partner)
      const origins = partnerOrigins(partner?.allowed_origins)
      warnIfFramingRefused(c, s, 'hosted bank connect page', partner, origins)
      const nonce = s.random.token(22)
      setHostedPageHeaders(c, nonce, origins)
      return c.html(
        bankConnectPage(
          institutions,
          await bankConnect.offered(session),
          {
            token,
            enrollUrl: '/api/v1/external-bank-account-connect/enrollment/public',
            allowedOrigins: exactOrigins(origins),
            originPatterns: originPatterns(origins),
            partnerName: partner?.display_name ?? 'the app',
          },
          nonce,
        ),
        200,
      )
    },
    (result, c) => {
      // A missing token: the hosted 400 page, not the JSON envelope of the API routes.
      if (!result.success) {
        const [title, status] = linkPages.missing
        return hostedErrorPage(
          c,
          title,
          'This bank connect link has no token. Open the connect_url exactly as the app received it.',
          status,
        )
      }
    },
  )

  app.openapi(
    accessRoute('public', {
      method: 'post',
      path: '/external-bank-account-connect/enrollment/public',
      operationId: 'enrollBankAccount',
      tags,
      summary:
        'Connect the account chosen on the hosted page (public: the token is the credential)',
      request: { body: jsonBody(EnrollBody) },
      responses: {
        201: jsonResponse(envelope(BankAccount, 'BankAccountCreated'), 'The connected account.'),
        ...errorResponses(400, 401, 403, 413, 415),
      },
    }),
    async (c) => {
      const { token, institution_id, account_id } = c.req.valid('json')
      const account = await bankConnect.enroll(token, institution_id, account_id)
      const partner = await bankConnect.partnerOf(account.partner_id)
      if (partner) attributePartner(c, partner)
      return c.json({ success: true as const, data: publicBankAccount(account) }, 201)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'get',
      path: '/external-bank-account-connect/accounts',
      operationId: 'listBankAccounts',
      tags,
      summary: "The user's connected bank accounts",
      description: 'Newest first; `limit` 1–100 (default 20), `starting_after` a bank account id.',
      request: { query: ListQuery },
      responses: {
        200: jsonResponse(envelope(pageOf(BankAccount), 'BankAccountList'), 'Accounts.'),
        ...errorResponses(400, ...orgErrors),
      },
    }),
    async (c) => {
      const rows = await bankConnect.accounts(c.get('user'))
      const page = paginate(rows, c.req.valid('query'), publicBankAccount)
      return c.json({ success: true as const, data: page }, 200)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'delete',
      path: '/external-bank-account-connect/accounts/{id}',
      operationId: 'removeBankAccount',
      tags,
      summary: 'Remove a connected bank account',
      request: {
        params: z.object({ id: BankAccountId }),
      },
      responses: {
        200: jsonResponse(envelope(BankAccount, 'BankAccountRemoved'), 'Removed.'),
        ...errorResponses(400, ...orgErrors, 404),
      },
    }),
    async (c) => {
      const removed = await bankConnect.remove(c.get('user'), c.req.valid('param').id)
      return c.json({ success: true as const, data: publicBankAccount(removed) }, 200)
    },
  )

  return app
}
