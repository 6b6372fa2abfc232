import { expect } from 'vitest'
import {
  type Call,
  type Creds,
  connectBank,
  createPartner,
  onboardedUser,
  orgHeaders,
} from '../helpers.js'

/**
 * Partners that each own one of every kind of resource, for the isolation and fuzz suites:
 * a user with a card, funding, a posted purchase, a dispute, a bank account, a deposit, an
 * onboarding, a webhook endpoint with a delivery.
 */

export interface Tenant {
  name: string
  partnerId: string
  creds: Creds
  headers: Record<string, string>
  userId: string
  email: string
  ids: Record<string, string>
}

export async function buildTenant(call: Call, name: string): Promise<Tenant> {
  const partner = await createPartner(call, { name })
  const creds = partner.creds
  const user = await onboardedUser(call, {}, creds)
  const headers = { ...orgHeaders(creds), ...user.bearer }
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, { creds, headers: user.bearer, body })
    expect(res.status, `${name} ${method} ${path}: ${res.text}`).toBeLessThan(300)
    return res.json
  }
  const webhook = await ok('POST', '/api/v1/partner/webhooks', {
    url: `http://127.0.0.1:9/${name}`,
    events: [],
  })
  const fund = await ok('POST', '/api/v1/partner/cards/simulate-fund', { amount: 100 })
  const purchase = await ok('POST', '/api/v1/partner/cards/simulate-purchase', {
    amount: 10,
    merchant: { name: `Shop of ${name}` },
  })
  const purchaseId = (purchase.data.transaction?.id ?? purchase.data.id) as string
  await ok('POST', `/api/v1/partner/transactions/${purchaseId}/simulate-clearing`, {})
  const dispute = await ok('POST', '/api/v1/partner/disputes', {
    transaction_id: purchaseId,
    reason: 'fraudulent',
  })
  const bankId = await connectBank(call, user.bearer, creds)
  const deposit = await ok('POST', '/api/v1/partner/cards/deposits', {
    amount: 5,
    external_bank_account_id: bankId,
  })
  const latest = await ok('GET', '/api/v1/partner/cards/onboarding/latest')
  await call('POST', '/_sandbox/webhooks/flush', { creds: null })
  const deliveries = await ok('GET', `/api/v1/partner/webhooks/${webhook.webhook.id}/deliveries`)
  return {
    name,
    partnerId: partner.id,
    creds,
    headers,
    userId: user.userId,
    email: user.user.email,
    ids: {
      webhook: webhook.webhook.id,
      delivery: deliveries.data[0]?.id,
      funding: fund.data.transaction?.id ?? fund.data.id,
      purchase: purchaseId,
      dispute: dispute.data.id,
      bank: bankId,
      deposit: deposit.data.id,
      onboarding: latest.data.onboardingId,
      card: user.cardId,
    },
  }
}
