import { describe, expect, it } from 'vitest'
import { parseOptions } from '../src/index.js'
import {
  type Call,
  type Creds,
  createPartner,
  onboardingApplicant,
  registerAndLogin,
  setup,
  walkAndComplete,
} from './helpers.js'

/**
 * Spec section 4: a completion's `inquiry_id` and `product_id` default to server-configured
 * values; with neither given and no default configured the answer is the 400
 * `Missing inquiry_id or product_id`. Defaults come from the sandbox options (flag/env),
 * a scenario, or the partner's `config`, in increasing precedence.
 */

const PASS = { result: 'pass', data: { from: 'test' }, agreement_accepted: true }
const MISSING = 'Missing inquiry_id or product_id'

/** A new user of `creds` starts an onboarding and completes it with `body` (defaults omitted). */
async function complete(call: Call, body: Record<string, unknown> = PASS, creds?: Creds) {
  const { user, bearer } = await registerAndLogin(call, {}, creds)
  const start = await call('POST', '/api/v1/partner/cards/onboarding', {
    creds,
    headers: bearer,
    body: onboardingApplicant(user),
  })
  expect(start.status, start.text).toBe(200)
  const done = await walkAndComplete(call, start.json.data.onboardingId, {
    creds,
    headers: bearer,
    body,
  })
  const status = await call('GET', '/api/v1/partner/cards/status', { creds, headers: bearer })
  return { done, status }
}

describe('completion defaults of inquiry_id and product_id', () => {
  it('both default out of the box: the completion stores and answers them, the card has the product', async () => {
    const { done } = await complete((await setup()).call)
    expect(done.status, done.text).toBe(200)
    expect(done.json.data).toMatchObject({
      inquiry_id: 'inq_sandbox_default',
      product_id: 'prod_sandbox_card',
      card: { product_id: 'prod_sandbox_card' },
    })
  })

  it('given ids win over every default', async () => {
    const { done } = await complete((await setup({ defaultInquiryId: 'inq_flag' })).call, {
      ...PASS,
      inquiry_id: 'inq_given',
      product_id: 'prod_given',
    })
    expect(done.json.data).toMatchObject({ inquiry_id: 'inq_given', product_id: 'prod_given' })
  })

  it('the sandbox-wide options (--default-inquiry-id, --default-product-id) set them', async () => {
    const { done } = await complete(
      (await setup({ defaultInquiryId: 'inq_ci_suite', defaultProductId: 'prod_platinum' })).call,
    )
    expect(done.json.data).toMatchObject({
      inquiry_id: 'inq_ci_suite',
      product_id: 'prod_platinum',
      card: { product_id: 'prod_platinum' },
    })
  })

  it('with both options off, omitting both ids is the 400 and changes nothing; one id is enough', async () => {
    const { call } = await setup({ defaultInquiryId: 'off', defaultProductId: 'off' })
    const { done, status } = await complete(call)
    expect(done.status).toBe(400)
    expect(done.json).toMatchObject({
      success: false,
      error: { code: 'validation_error', message: MISSING },
    })
    expect(done.json.requestId).toMatch(/^req_/)
    expect(status.json.data.card).toBeNull()
    // Walked (headlessly, so the completion is taken), and left there by the 400.
    expect(status.json.data.onboarding.status).toBe('in_progress')
    const withInquiry = await complete(call, { ...PASS, inquiry_id: 'inq_only' })
    expect(withInquiry.done.status, withInquiry.done.text).toBe(200)
    expect(withInquiry.done.json.data).toMatchObject({ inquiry_id: 'inq_only', product_id: null })
    const withProduct = await complete(call, { ...PASS, product_id: 'prod_only' })
    expect(withProduct.done.json.data).toMatchObject({ inquiry_id: null, product_id: 'prod_only' })
  })

  it('a scenario overrides the sandbox options; null there configures no default', async () => {
    const { call } = await setup({ defaultInquiryId: 'inq_flag' })
    const loaded = await call('POST', '/_sandbox/scenarios', {
      creds: null,
      body: {
        name: 'no-defaults',
        description: 'No server-configured completion ids.',
        onboarding: { default_inquiry_id: null, default_product_id: null },
      },
    })
    expect(loaded.status, loaded.text).toBe(201)
    const gold = await createPartner(call, { name: 'Gold Cards', scenario: 'no-defaults' })
    const missing = await complete(call, PASS, gold.creds)
    expect(missing.done.status, missing.done.text).toBe(400)
    expect(missing.done.json.error.message).toBe(MISSING)
    // Other partners keep the sandbox-wide defaults.
    expect((await complete(call)).done.json.data.inquiry_id).toBe('inq_flag')
  })

  it("a partner's config wins over scenario and options, and null there turns the default off", async () => {
    const { call } = await setup({ defaultProductId: 'prod_flag' })
    const patch = await call('PATCH', '/api/v1/partner/me', {
      body: { config: { default_inquiry_id: 'inq_config', default_product_id: 'prod_config' } },
    })
    expect(patch.status, patch.text).toBe(200)
    expect((await complete(call)).done.json.data).toMatchObject({
      inquiry_id: 'inq_config',
      product_id: 'prod_config',
    })
    await call('PATCH', '/api/v1/partner/me', {
      body: { config: { default_inquiry_id: null, default_product_id: null } },
    })
    const missing = await complete(call)
    expect(missing.done.status).toBe(400)
    expect(missing.done.json.error.message).toBe(MISSING)
  })

  it('a partner config default that is not a string or null is a 400 naming the field', async () => {
    const { call } = await setup()
    const bad = await call('PATCH', '/api/v1/partner/me', {
      body: { config: { default_inquiry_id: 42 } },
    })
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.json.error.details)).toContain('config.default_inquiry_id')
    const me = await call('GET', '/api/v1/partner/me')
    expect(me.json.partner.config).not.toHaveProperty('default_inquiry_id')
  })

  it('the options come from flags and environment with a clear error for a bad value', () => {
    expect(parseOptions({})).toMatchObject({
      defaultInquiryId: 'inq_sandbox_default',
      defaultProductId: 'prod_sandbox_card',
    })
    expect(parseOptions({ defaultInquiryId: 'off' }).defaultInquiryId).toBe('off')
    expect(() => parseOptions({ defaultProductId: 'has spaces' })).toThrow(/defaultProductId/)
  })
})
