import { OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import { publicTransaction, requireTransaction, transactionPage } from '../domain/ledger.js'
import { ListQuery } from '../domain/pagination.js'
import { clearPurchase, refundPurchase, reversePurchase } from '../domain/purchases.js'
import { routeFactory } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import { envelope } from '../schemas/cards.js'
import { errorResponses, jsonResponse, orgErrors } from '../schemas/common.js'
import { RefundBody, Transaction, TransactionPage, TransactionQuery } from '../schemas/money.js'

const route = routeFactory(['Transactions'], 'session')
const TxnParam = z.object({ id: z.string().startsWith('txn_', 'must be a transaction id (txn_…)') })

/** /partner/transactions/*: list with filters, get one, and the sandbox's purchase lifecycle. */
export function transactionRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    route({
      method: 'get',
      path: '/partner/transactions',
      operationId: 'listTransactions',
      summary: "The user's transactions, newest first, with filters",
      request: { query: ListQuery.extend(TransactionQuery.shape) },
      responses: {
        200: jsonResponse(envelope(TransactionPage, 'TransactionList'), 'A page.'),
        ...errorResponses(400, ...orgErrors),
      },
    }),
    (c) => {
      const q = c.req.valid('query')
      const keep =
        q.type || q.status
          ? (t: { type: string; status: string }) =>
              (!q.type || t.type === q.type) && (!q.status || t.status === q.status)
          : undefined
      const page = transactionPage(deps, c.get('user').id, q, keep)
      return c.json({ success: true as const, data: page }, 200)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/transactions/{id}',
      operationId: 'getTransaction',
      summary: 'One transaction',
      request: { params: TxnParam },
      responses: {
        200: jsonResponse(envelope(Transaction, 'TransactionOne'), 'The transaction.'),
        ...errorResponses(400, ...orgErrors, 404),
      },
    }),
    (c) =>
      c.json(
        {
          success: true as const,
          data: publicTransaction(
            requireTransaction(deps, c.get('user').id, c.req.valid('param').id),
          ),
        },
        200,
      ),
  )

  const lifecycle = [
    [
      'simulate-clearing',
      'Clear a pending purchase (sandbox only): the hold becomes a ledger debit',
      clearPurchase,
      'simulateClearing',
      'TransactionCleared',
    ],
    [
      'simulate-reversal',
      'Reverse a pending purchase (sandbox only): the hold is released',
      reversePurchase,
      'simulateReversal',
      'TransactionReversed',
    ],
  ] as const
  for (const [action, summary, run, operationId, name] of lifecycle) {
    app.openapi(
      route({
        method: 'post',
        path: `/partner/transactions/{id}/${action}`,
        operationId,
        summary,
        request: { params: TxnParam },
        responses: {
          200: jsonResponse(envelope(Transaction, name), 'The purchase.'),
          ...errorResponses(400, ...orgErrors, 404, 409),
        },
      }),
      (c) =>
        c.json(
          {
            success: true as const,
            data: publicTransaction(run(deps, c.get('user'), c.req.valid('param').id)),
          },
          200,
        ),
    )
  }

  app.openapi(
    route({
      method: 'post',
      path: '/partner/transactions/{id}/simulate-refund',
      operationId: 'simulateRefund',
      summary: 'Refund a posted purchase, wholly or in part (sandbox only)',
      request: {
        params: TxnParam,
        body: { required: false, content: { 'application/json': { schema: RefundBody } } },
      },
      responses: {
        201: jsonResponse(envelope(Transaction, 'RefundEnvelope'), 'The refund (a posted credit).'),
        ...errorResponses(400, ...orgErrors, 404, 409),
      },
    }),
    (c) => {
      const refund = refundPurchase(
        deps,
        c.get('user'),
        c.req.valid('param').id,
        c.req.valid('json').amount,
      )
      return c.json({ success: true as const, data: publicTransaction(refund) }, 201)
    },
  )

  return app
}
