import { OpenAPIHono, z } from '@hono/zod-openapi'
import { publicCard, toDollars } from '../domain/cards.js'
import { publicDeposit } from '../domain/funding.js'
import { publicTransaction } from '../domain/ledger.js'
import { ListQuery, pageOf } from '../domain/pagination.js'
import { routeFactory } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import { Card, envelope } from '../schemas/cards.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import { DepositId } from '../schemas/ids.js'
import {
  Deposit,
  DepositBody,
  FundBody,
  FundResult,
  PurchaseBody,
  Transaction,
  TransactionPage,
} from '../schemas/money.js'
import type { Money } from '../services/money.js'

const route = routeFactory(['Funding and cards'], 'session')

const pageAnswer = (rows: Awaited<ReturnType<Money['transactions']>>) => ({
  success: true as const,
  data: { data: rows.data.map(publicTransaction), has_more: rows.has_more },
})
const bodyErrors = [400, ...orgErrors, 409, 413, 415] as const

/** The card group's money routes: simulate-fund, deposits, card transactions, purchases, freeze. */
export function fundingRoutes(s: { money: Money }) {
  const { money } = s
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    route({
      method: 'post',
      path: '/partner/cards/simulate-fund',
      operationId: 'simulateFund',
      summary: 'Fund the card (sandbox shortcut)',
      description:
        'A posted credit at once; emits card.funded. Needs an active card (409 otherwise). The amount is positive with at most 2 decimals, up to the scenario maximum (default 10,000).',
      request: { body: jsonBody(FundBody) },
      responses: {
        200: jsonResponse(FundResult, 'Funded: message and availableBalance.'),
        ...errorResponses(...bodyErrors),
      },
    }),
    async (c) => {
      const { card, txn } = await money.simulateFund(
        c.get('partner'),
        c.get('user'),
        c.req.valid('json').amount,
      )
      return c.json(
        {
          success: true as const,
          message: `Card funded with ${toDollars(txn.amount_cents).toFixed(2)} USD.`,
          availableBalance: toDollars(card.available_balance_cents),
          data: { transaction: publicTransaction(txn) },
        },
        200,
      )
    },
  )

  app.openapi(
    route({
      method: 'post',
      path: '/partner/cards/deposits',
      operationId: 'createDeposit',
      summary: 'Deposit from a connected bank account',
      description:
        'The deposit is pending until it settles on the sandbox clock (default 30 minutes; a scenario can make it days): then succeeded (the card is credited) or failed. Magic amounts fail: cents .51 (insufficient_funds), .52 (account_closed), .53 (return_by_bank).',
      request: { body: jsonBody(DepositBody) },
      responses: {
        201: jsonResponse(envelope(Deposit, 'DepositEnvelope'), 'The pending deposit.'),
        ...errorResponses(...bodyErrors),
      },
    }),
    async (c) => {
      const { amount, external_bank_account_id } = c.req.valid('json')
      const deposit = await money.createDeposit(
        c.get('partner'),
        c.get('user'),
        amount,
        external_bank_account_id,
      )
      return c.json({ success: true as const, data: publicDeposit(deposit) }, 201)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/cards/deposits',
      operationId: 'listDeposits',
      summary: "The user's deposits, newest first",
      request: { query: ListQuery },
      responses: {
        200: jsonResponse(envelope(pageOf(Deposit), 'DepositList'), 'Deposits.'),
        ...errorResponses(400, ...orgErrors),
      },
    }),
    async (c) => {
      const page = await money.deposits(c.get('user'), c.req.valid('query'))
      const data = { data: page.data.map(publicDeposit), has_more: page.has_more }
      return c.json({ success: true as const, data }, 200)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/cards/deposits/{id}',
      operationId: 'getDeposit',
      summary: 'One deposit',
      request: {
        params: z.object({ id: DepositId }),
      },
      responses: {
        200: jsonResponse(envelope(Deposit, 'DepositOne'), 'The deposit.'),
        ...errorResponses(400, ...orgErrors, 404),
      },
    }),
    async (c) => {
      const row = await money.deposit(c.get('user'), c.req.valid('param').id)
      return c.json({ success: true as const, data: publicDeposit(row) }, 200)
    },
  )

  app.openapi(
    route({
      method: 'get',
      path: '/partner/cards/transactions',
      operationId: 'listCardTransactions',
      summary: "The card's transactions, newest first",
      description:
        'Every money movement of the card with type, status, amount, merchant for purchases and the balances after it. `limit` 1–100 (default 20), `starting_after` a transaction id.',
      request: { query: ListQuery },
      responses: {
        200: jsonResponse(envelope(TransactionPage, 'CardTransactions'), 'A page of transactions.'),
        ...errorResponses(400, ...orgErrors),
      },
    }),
    async (c) => {
      const rows = await money.transactions(c.get('user'), c.req.valid('query'))
      return c.json(pageAnswer(rows), 200)
    },
  )

  app.openapi(
    route({
      method: 'post',
      path: '/partner/cards/simulate-purchase',
      operationId: 'simulatePurchase',
      summary: 'Simulate a purchase authorization at a merchant (sandbox only)',
      description:
        'Approved: a pending debit that holds the amount (available balance drops, ledger balance does not). Declined (status declined, decline_reason): insufficient_funds, card_frozen, or a scenario rule. Clear, reverse or refund it under /partner/transactions/{id}.',
      request: { body: jsonBody(PurchaseBody) },
      responses: {
        201: jsonResponse(envelope(Transaction, 'PurchaseEnvelope'), 'The authorization.'),
        ...errorResponses(...bodyErrors),
      },
    }),
    async (c) => {
      const { amount, merchant } = c.req.valid('json')
      const txn = await money.simulatePurchase(c.get('partner'), c.get('user'), amount, merchant)
      return c.json({ success: true as const, data: publicTransaction(txn) }, 201)
    },
  )

  for (const [action, frozen, operationId] of [
    ['freeze', true, 'freezeCard'],
    ['unfreeze', false, 'unfreezeCard'],
  ] as const) {
    app.openapi(
      route({
        method: 'post',
        path: `/partner/cards/${action}`,
        operationId,
        summary: frozen ? 'Freeze the card (purchases are declined)' : 'Unfreeze the card',
        responses: {
          200: jsonResponse(envelope(Card, frozen ? 'CardFrozen' : 'CardUnfrozen'), 'The card.'),
          ...errorResponses(...orgErrors, 409),
        },
      }),
      async (c) => {
        const card = await money.setCardFrozen(c.get('user'), frozen)
        return c.json({ success: true as const, data: publicCard(card) }, 200)
      },
    )
  }

  return app
}
