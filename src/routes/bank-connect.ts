import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { AppEnv, Deps } from '../deps.js'
import {
  createConnectSession,
  enroll,
  institutions,
  offeredAccounts,
  openConnectSession,
  publicBankAccount,
} from '../domain/bank-connect.js'
import { newestFirst, pageOf } from '../domain/pagination.js'
import { PartnerUnavailableError, unavailablePage } from '../domain/partner-status.js'
import { partnerOrigins } from '../domain/redirect-uri.js'
import { ApiError } from '../errors.js'
import { bankConnectPage } from '../hosted/bank-connect-page.js'
import { hostedErrorPage, setHostedPageHeaders } from '../hosted/page-headers.js'
import { validationHook } from '../http/validation.js'
import { envelope } from '../schemas/cards.js'
import {
  errorResponses,
  jsonBody,
  jsonResponse,
  orgErrors,
  sessionSecurity,
} from '../schemas/common.js'
import { BankAccount, EnrollBody } from '../schemas/money.js'

const tags = ['External bank accounts']

export function bankConnectRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    createRoute({
      method: 'post',
      path: '/external-bank-account-connect/token',
      tags,
      security: sessionSecurity,
      summary: 'Create a bank-connect token and the URL of the hosted connect page',
      description: 'The token works once and for 15 minutes.',
      responses: {
        201: jsonResponse(
          envelope(
            z.object({ connect_token: z.string(), connect_url: z.url(), expires_at: z.string() }),
            'BankConnectSession',
          ),
          'The connect session.',
        ),
        ...errorResponses(...orgErrors),
      },
    }),
    (c) => c.json({ success: true as const, data: createConnectSession(deps, c.get('user')) }, 201),
  )

  app.get('/external-bank-account-connect/connect', async (c) => {
    let session: ReturnType<typeof openConnectSession>
    try {
      session = openConnectSession(deps, c.req.query('token'))
    } catch (error) {
      if (error instanceof PartnerUnavailableError) {
        return hostedErrorPage(c, unavailablePage.title, unavailablePage.message, 403)
      }
      if (!(error instanceof ApiError)) throw error
      return hostedErrorPage(c, 'Link not valid', error.message, 401)
    }
    const partner = deps.store.get('partners', session.partner_id)
    const origins = partnerOrigins(partner?.allowed_origins)
    const nonce = deps.random.token(22)
    setHostedPageHeaders(c, nonce, origins)
    return c.html(
      bankConnectPage(
        institutions,
        await offeredAccounts(session),
        {
          token: c.req.query('token') as string,
          enrollUrl: '/api/v1/external-bank-account-connect/enrollment/public',
          allowedOrigins: origins,
        },
        nonce,
      ),
    )
  })

  app.openapi(
    createRoute({
      method: 'post',
      path: '/external-bank-account-connect/enrollment/public',
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
      const account = await enroll(deps, token, institution_id, account_id)
      return c.json({ success: true as const, data: publicBankAccount(account) }, 201)
    },
  )

  app.openapi(
    createRoute({
      method: 'get',
      path: '/external-bank-account-connect/accounts',
      tags,
      security: sessionSecurity,
      summary: "The user's connected bank accounts",
      responses: {
        200: jsonResponse(envelope(pageOf(BankAccount), 'BankAccountList'), 'Accounts.'),
        ...errorResponses(...orgErrors),
      },
    }),
    (c) => {
      const rows = newestFirst(
        deps.store
          .lookup('bank_accounts', 'bank_accounts_by_user', c.get('user').id)
          .filter((b) => b.status === 'active'),
      )
      return c.json(
        { success: true as const, data: { data: rows.map(publicBankAccount), has_more: false } },
        200,
      )
    },
  )

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/external-bank-account-connect/accounts/{id}',
      tags,
      security: sessionSecurity,
      summary: 'Remove a connected bank account',
      request: {
        params: z.object({
          id: z.string().startsWith('bank_', 'must be a bank account id (bank_…)'),
        }),
      },
      responses: {
        200: jsonResponse(envelope(BankAccount, 'BankAccountRemoved'), 'Removed.'),
        ...errorResponses(400, ...orgErrors, 404),
      },
    }),
    (c) => {
      const { id } = c.req.valid('param')
      const row = deps.store.get('bank_accounts', id)
      if (!row || row.user_id !== c.get('user').id || row.status !== 'active') {
        throw new ApiError('not_found', `No connected bank account ${id} for this user.`)
      }
      const next = {
        ...row,
        status: 'removed' as const,
        updated_at: deps.clocks.forPartner(row.partner_id).iso(),
      }
      deps.store.put('bank_accounts', next)
      return c.json({ success: true as const, data: publicBankAccount(next) }, 200)
    },
  )

  return app
}
