/**
 * The examples of the OpenAPI document: one story told throughout (Acme Fintech's user Jane
 * Doe registers, onboards, gets a card, funds it, buys a coffee), so the ids, times and
 * amounts of every example agree with each other. Schemas attach these with
 * `.openapi({ example })`; envelopes and lists are composed from them (src/openapi/).
 */

export const ids = {
  partner: '6f1c2b1e-6c8a-4d3e-9a51-2d7f0c9b8e10',
  user: '3b2f7c1a-9d4e-4a6b-8c2d-1e5f7a9b0c3d',
  onboarding: '8a1d3f5e-2b4c-4e6a-9f8b-7c5d3e1a2b4f',
  consumer: 'cons_5Hc9Rk2LmQ8vT1xZ',
  /** Set on the user at approval: the consumer the onboarding created. */
  providerConsumer: 'cons_5Hc9Rk2LmQ8vT1xZ',
  card: 'card_9dKq2mZx7TbL4wRp',
  funding: 'txn_Fq8Lm2Xc7Rb3Vn9K',
  purchase: 'txn_Pc4Hs8Wd2Mz6Qy1J',
  deposit: 'dep_2Wm8Tk5Xr1Lq7Zb4',
  dispute: 'dsp_6Nv3Jc9Pw2Hx8Rt5',
  bank: 'bank_4Ry7Kd2Mq9Wx3Lc8',
  webhook: 'wh_3kTmW0c7Yq1dJ2Lx8RbN5pZs',
  delivery: 'dlv_9aQ2Lm7Xc4Rt8Wb1',
  event: 'evt_5Tz1Kq8Mw3Xd7Rb2',
  rule: 'rul_4Hs8Wd2Mz6Qy1JPc4Hs8Wd2M',
  request: 'req_k3Jd9Qx2Lm0',
} as const

export const times = {
  partnerCreated: '2026-01-15T09:00:00.000Z',
  registered: '2026-03-02T10:15:00.000Z',
  onboarded: '2026-03-02T10:21:30.000Z',
  funded: '2026-03-02T10:25:00.000Z',
  purchased: '2026-03-02T12:40:00.000Z',
} as const

export const partner = {
  id: ids.partner,
  name: 'Acme Fintech',
  display_name: 'Acme Fintech',
  slug: 'acme-fintech',
  api_key: 'pk_test_acme_sandbox_default_key',
  allowed_origins: ['http://localhost:3000'],
  webhook_url: 'https://acme.example/webhooks/cards',
  scopes: ['users', 'cards', 'transactions'],
  rate_limit: 1000,
  status: 'active',
  contact_email: 'dev@acme-fintech.example',
  contact_name: 'Jill Ryan',
  config: { default_product_id: 'prod_sandbox_card' },
  created_at: times.partnerCreated,
  updated_at: times.partnerCreated,
}

export const address = {
  line1: '1 Main Street',
  line2: 'Apt 4',
  city: 'Springfield',
  state: 'IL',
  zip: '62701',
  country_code: 'US',
}

export const user = {
  id: ids.user,
  partner_id: ids.partner,
  email: 'jane.doe@example.com',
  phone_number: '+14155550123',
  first_name: 'Jane',
  last_name: 'Doe',
  date_of_birth: '1990-04-12',
  address,
  secondary_address: {},
  provider_consumer_id: null,
  kyc_status: 'not_started',
  metadata: { crm_id: 'C-1042' },
  is_active: true,
  profile_picture_url: null,
  created_at: times.registered,
  updated_at: times.registered,
}

export const card = {
  id: ids.card,
  brand: 'visa',
  last4: '4242',
  exp_month: 3,
  exp_year: 2030,
  cardholder_name: 'Jane Doe',
  status: 'active',
  currency: 'USD',
  available_balance: 95.75,
  ledger_balance: 100,
  product_id: 'prod_sandbox_card',
  created_at: times.onboarded,
  updated_at: times.purchased,
}

export const purchase = {
  id: ids.purchase,
  card_id: ids.card,
  type: 'purchase',
  status: 'pending',
  direction: 'debit',
  amount: 4.25,
  currency: 'USD',
  description: 'Blue Bottle Coffee',
  merchant: {
    name: 'Blue Bottle Coffee',
    category: 'restaurants',
    city: 'Oakland',
    country: 'US',
  },
  deposit_id: null,
  dispute_id: null,
  original_transaction_id: null,
  decline_reason: null,
  refunded_amount: 0,
  available_balance_after: 95.75,
  ledger_balance_after: 100,
  created_at: times.purchased,
  updated_at: times.purchased,
  posted_at: null,
}

export const funding = {
  ...purchase,
  id: ids.funding,
  type: 'funding',
  status: 'posted',
  direction: 'credit',
  amount: 100,
  description: 'Sandbox funding',
  merchant: null,
  available_balance_after: 100,
  ledger_balance_after: 100,
  created_at: times.funded,
  updated_at: times.funded,
  posted_at: times.funded,
}

export const webhook = {
  id: ids.webhook,
  url: 'https://acme.example/webhooks/cards',
  events: ['card.created', 'card.funded'],
  enabled: true,
  description: 'Card lifecycle events',
  primary: false,
  created_at: times.partnerCreated,
  updated_at: times.partnerCreated,
}

export const delivery = {
  id: ids.delivery,
  webhook_id: ids.webhook,
  event_id: ids.event,
  event_type: 'card.funded',
  url: webhook.url,
  status: 'succeeded',
  attempts: [{ number: 1, at: times.funded, status_code: 200, duration_ms: 42, error: null }],
  retries: 0,
  next_attempt_at: null,
  redelivery_of: null,
  lab: null,
  created_at: times.funded,
  completed_at: times.funded,
}

export const deposit = {
  id: ids.deposit,
  card_id: ids.card,
  external_bank_account_id: ids.bank,
  amount: 250,
  currency: 'USD',
  status: 'pending',
  failure_reason: null,
  transaction_id: 'txn_Dp5Wq1Lx8Mc3Rz7T',
  settles_at: '2026-03-02T13:10:00.000Z',
  created_at: '2026-03-02T12:40:00.000Z',
  updated_at: '2026-03-02T12:40:00.000Z',
}

export const dispute = {
  id: ids.dispute,
  transaction_id: ids.purchase,
  card_id: ids.card,
  reason: 'fraudulent',
  description: 'I did not make this purchase.',
  amount: 4.25,
  currency: 'USD',
  status: 'under_review',
  evidence: [
    {
      id: 'evd_3Lk8Qw2Xz5Rm9Tb1',
      text: 'I was at work in Chicago at the time.',
      added_at: times.purchased,
    },
  ],
  provisional_credit_transaction_id: 'txn_Pv2Cr8Ed4It6Lx1Q',
  reversal_transaction_id: null,
  resolves_at: '2026-03-09T12:40:00.000Z',
  resolved_at: null,
  created_at: times.purchased,
  updated_at: times.purchased,
}

export const bankAccount = {
  id: ids.bank,
  institution_id: 'ins_sandbox_first',
  institution_name: 'Sandbox First Bank',
  account_name: "Jane's Everyday Checking",
  account_type: 'checking',
  account_mask: '6789',
  status: 'active',
  created_at: '2026-03-02T12:30:00.000Z',
  updated_at: '2026-03-02T12:30:00.000Z',
}

const accessToken = 'obt_Xk7Qm2Lw9Rc4Tz8Vb1Nd5Hs3Jf6Gp0Ay'

export const onboardingSession = {
  message: 'Onboarding started',
  onboardingEmbedUrl: `http://127.0.0.1:4010/embed/onboarding?onboarding_id=${ids.onboarding}&access_token=${accessToken}`,
  accessToken,
  expiresIn: 3600,
  onboardingId: ids.onboarding,
  consumerId: ids.consumer,
  status: 'pending',
  consumerKycStatus: 'pending',
}

export const onboardingProgress = {
  onboardingId: ids.onboarding,
  consumerId: ids.consumer,
  status: 'in_progress',
  consumerKycStatus: 'pending',
  steps: { identity_verification: true, underwriting: false, agreement: false },
  current_step: 'underwriting',
  flow_result: null,
  failure_reason: null,
  review_resolves_at: null,
  card_id: null,
  accessTokenExpiresAt: '2026-03-02T11:18:00.000Z',
  created_at: '2026-03-02T10:18:00.000Z',
  updated_at: '2026-03-02T10:19:10.000Z',
}

export const completion = {
  onboardingId: ids.onboarding,
  status: 'completed',
  result: 'pass',
  consumer: {
    id: ids.consumer,
    user_id: ids.user,
    kyc_status: 'approved',
    provider_consumer_id: ids.providerConsumer,
  },
  card: { ...card, available_balance: 0, ledger_balance: 0, updated_at: times.onboarded },
  failure_reason: null,
  review_resolves_at: null,
  inquiry_id: 'inq_sandbox_default',
  product_id: 'prod_sandbox_card',
}

export const cardStatus = {
  user_id: ids.user,
  kyc_status: 'approved',
  provider_consumer_id: ids.providerConsumer,
  onboarding: {
    onboardingId: ids.onboarding,
    status: 'completed',
    consumerKycStatus: 'approved',
    failure_reason: null,
    review_resolves_at: null,
  },
  card,
  balances: { available: 95.75, ledger: 100, currency: 'USD' },
}

export const applicant = {
  first_name: 'Jane',
  last_name: 'Doe',
  email: 'jane.doe@example.com',
  phone_number: '+14155550123',
  country_code: 'US',
  date_of_birth: '1990-04-12',
  address_line1: '1 Main Street',
  address_line2: 'Apt 4',
  address_city: 'Springfield',
  address_state: 'IL',
  address_zip: '62701',
  ssn: '123-45-6789',
  redirect_uri: 'http://localhost:3000/onboarding/done',
}

export const register = {
  email: 'jane.doe@example.com',
  phone_number: '+14155550123',
  first_name: 'Jane',
  last_name: 'Doe',
  password: 'Sandbox-Passw0rd!',
  ssn: '123-45-6789',
  date_of_birth: '1990-04-12',
}

export const sessionToken =
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIzYjJmN2MxYSIsInBpZCI6IjZmMWMyYjFlIiwic2lkIjoic2Vzc18xIn0.sig'
