import { OpenAPIHono, z } from '@hono/zod-openapi'
import { publicTransaction } from '../domain/ledger.js'
import { ListQuery } from '../domain/pagination.js'
import { routeFactory } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import { envelope } from '../schemas/cards.js'
import { errorResponses, jsonResponse, orgErrors } from '../schemas/common.js'
import { TransactionId } from '../schemas/ids.js'
import { RefundBody, Transaction, TransactionPage, TransactionQuery } from '../schemas/money.js'
import type { Money } from '../services/money.js'

const route = routeFactory(['Transactions'], 'session')
const TxnParam = z.object({ id: TransactionId })

/** /partner/transactions/*: list with filters, get one, and the sandbox's purchase lifecycle. */
export function transactionRoutes(s: { money: Money }) {
  const { money } = s
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
    async (c) => {
      const q = c.req.valid('query')
      const keep =
        q.type || q.status
          ? (t: { type: string; status: string }) =>
              (!q.type || t.type === q.type) && (!q.status || t.status === q.status)
          : undefined
      const page = await money.transactions(c.get('user'), q, keep)
      const data = { data: page.data.map(publicTransaction), has_more: page.has_more }
      return c.json({ success: true as const, data }, 200)
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
    async (c) => {
      const txn = await money.transaction(c.get('user'), c.req.valid('param').id)
      return c.json({ success: true as const, data: publicTransaction(txn) }, 200)
    },
  )

  const lifecycle = [
    [
      'simulate-clearing',
      'Clear a pending purchase (sandbox only): the hold becomes a ledger debit',
      'clearPurchase',
      'simulateClearing',
      'TransactionCleared',
    ],
    [
      'simulate-reversal',
      'Reverse a pending purchase (sandbox only): the hold is released',
      'reversePurchase',
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
      async (c) => {
        const txn = await money[run](c.get('user'), c.req.valid('param').id)
        return c.json({ success: true as const, data: publicTransaction(txn) }, 200)
      },
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
    async (c) => {
      const refund = await money.refundPurchase(
        c.get('user'),
        c.req.valid('param').id,
        c.req.valid('json').amount,
      )
      return c.json({ success: true as const, data: publicTransaction(refund) }, 201)
    },
  )

  return app
}
