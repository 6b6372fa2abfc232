import { ApiError, validationError } from '../errors.js'
import { fundingLimits } from '../scenarios/money.js'
import { completionDefaults } from '../scenarios/onboarding.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { CardRow, OnboardingRow, PartnerRow, UserRow } from '../store/records.js'
import { issueCard, publicCard } from './cards.js'
import { recordTransaction } from './ledger.js'
import { currentStep, type OnboardingCtx, onboardingEventObject } from './onboarding.js'
import { flowResult } from './onboarding-flow.js'
import { publicUser } from './users.js'

/**
 * How an onboarding ends: the partner's completion (POST …/onboarding/:id/complete), and a
 * manual review whose time has come. A pass issues the card; a fail names its reason.
 */

export interface CompletionInput {
  result: 'pass' | 'fail'
  data: string | Record<string, unknown>
  agreement_accepted: boolean
  inquiry_id?: string
  product_id?: string
  product_configuration?: Record<string, unknown> | null
}

/** An onboarding after its completion, with the consumer and the card it issued, if any. */
export interface Completion {
  onboarding: OnboardingRow
  user: UserRow | undefined
  card: CardRow | undefined
}

/**
 * Completes an onboarding, to the letter of the spec. Completing twice with the same
 * `result` answers the first completion again (no second card, no second events); a
 * different `result` is a 409.
 */
export async function completeOnboarding(
  ctx: OnboardingCtx,
  tx: StateTx,
  partner: PartnerRow,
  user: UserRow,
  id: string,
  input: CompletionInput,
): Promise<Completion> {
  const defaults = completionDefaults(ctx.scenarios.forPartner(partner), partner.config, ctx.config)
  const inquiryId = input.inquiry_id ?? defaults.inquiry_id
  const productId = input.product_id ?? defaults.product_id
  if (!inquiryId && !productId)
    throw new ApiError('validation_error', 'Missing inquiry_id or product_id')
  // With the partner and user rows that approving or declining it reads (a transaction on a
  // database reads a row once and remembers it): one round trip for all three.
  const [row] = await Promise.all([
    tx.get('onboardings', id),
    tx.get('partners', partner.id),
    tx.get('users', user.id),
  ])
  if (!row || row.user_id !== user.id || row.partner_id !== partner.id) {
    throw new ApiError('not_found', `No onboarding ${id} for this user.`)
  }
  if (row.completion) {
    if (row.completion.result !== input.result) {
      throw new ApiError(
        'conflict',
        `This onboarding was already completed with result "${row.completion.result}".`,
      )
    }
    return completionOf(tx, row)
  }
  if (row.status === 'canceled')
    throw new ApiError('conflict', 'This onboarding was replaced by a newer one.')
  if (input.result === 'pass' && !input.agreement_accepted) {
    throw validationError(
      'agreement_accepted',
      'must be true for a pass: the user has to accept the card agreement',
    )
  }
  assertFlowAgrees(row, input)
  const now = ctx.clocks.forPartner(partner.id).iso()
  const completion = {
    result: input.result,
    data: typeof input.data === 'string' ? input.data : JSON.stringify(input.data),
    agreement_accepted: input.agreement_accepted,
    inquiry_id: inquiryId ?? null,
    product_id: productId ?? null,
    product_configuration: input.product_configuration ?? null,
    completed_at: now,
  }
  // The flow's own end decides (it agrees with the completion, checked above): a decline
  // keeps the flow's reason (KYC failure, underwriting decline, or agreement_declined, which
  // submitStep recorded there).
  let next: OnboardingRow = { ...row, completion, updated_at: now }
  if (row.flow_result === 'fail') {
    const reason = row.decision.reason ?? 'onboarding_flow_failed'
    // An underwriting decline or a declined agreement comes after identity verification passed.
    next = await decline(ctx, tx, next, user, reason, kycPassedFor(reason))
  } else if (row.decision.outcome === 'manual_review') {
    const resolves = new Date(
      ctx.clocks.nowOf(row.partner_id) + (row.decision.review_ms ?? 0),
    ).toISOString()
    next = {
      ...next,
      status: 'manual_review',
      consumer_kyc_status: 'pending',
      review_resolves_at: resolves,
    }
    tx.put('onboardings', next)
  } else {
    next = await approve(ctx, tx, next, user, productId ?? null)
  }
  return completionOf(tx, next)
}

/**
 * A completion is taken only once the hosted flow ended, and only with what it recorded, as a
 * real provider checks its inquiry: a backend that completes without its user fails here too.
 */
function assertFlowAgrees(row: OnboardingRow, input: CompletionInput): void {
  if (!row.flow_result) {
    const step = currentStep(row)
    throw new ApiError(
      'conflict',
      `The hosted flow of onboarding ${row.id} has not ended${step ? ` (the user is at ${step})` : ''}, so it cannot be completed yet. End it on the hosted page (onboardingEmbedUrl), headlessly with POST /_sandbox/onboardings/${row.id}/walk and {"end": "passed" | "failed" | "agreement_declined"}, or let the partner's auto_complete setting complete it when the flow ends.`,
    )
  }
  const agreed = flowResult(row).agreementAccepted
  if (input.result !== row.flow_result || input.agreement_accepted !== agreed) {
    throw new ApiError(
      'conflict',
      `The hosted flow of onboarding ${row.id} recorded result "${row.flow_result}" and agreement_accepted ${agreed}; this completion sent result "${input.result}" and agreement_accepted ${input.agreement_accepted}. Send the values of the flow's message.`,
    )
  }
}

/** Ends a manual review as the scenario said; false when it is no longer due (or gone). */
export async function resolveReview(
  ctx: OnboardingCtx,
  tx: StateTx,
  id: string,
  isDue: (row: OnboardingRow) => boolean,
): Promise<boolean> {
  // Read again inside the transaction: another sweep (or a reset) may have ended it.
  const row = await tx.get('onboardings', id)
  if (row?.status !== 'manual_review' || !isDue(row)) return false
  const user = await tx.get('users', row.user_id)
  if (!user) return false
  if (row.decision.review_outcome === 'kyc_fail')
    await decline(ctx, tx, row, user, 'identity_verification_failed', false)
  else await approve(ctx, tx, row, user, row.completion?.product_id ?? null)
  return true
}

async function approve(
  ctx: OnboardingCtx,
  tx: StateTx,
  row: OnboardingRow,
  user: UserRow,
  productId: string | null,
): Promise<OnboardingRow> {
  const now = ctx.clocks.forPartner(row.partner_id).iso()
  const [partner, stored] = await Promise.all([
    tx.get('partners', row.partner_id),
    tx.get('users', user.id),
  ])
  const card = issueCard(ctx, tx, user, row, productId)
  const { initialCents } = fundingLimits(
    partner ? ctx.scenarios.forPartner(partner) : ctx.scenarios.default,
  )
  if (initialCents > 0) {
    // The scenario's starting balance is a posted credit like any other, so the ledger adds up.
    recordTransaction(ctx, tx, card, {
      type: 'funding',
      direction: 'credit',
      amountCents: initialCents,
      status: 'posted',
      description: 'Initial balance (scenario)',
    })
  }
  const next: OnboardingRow = {
    ...row,
    status: 'completed',
    consumer_kyc_status: 'approved',
    card_id: card.id,
    review_resolves_at: null,
    updated_at: now,
  }
  const fresh = stored ?? user
  const approvedUser = {
    ...fresh,
    kyc_status: 'approved',
    provider_consumer_id: row.consumer_id,
    updated_at: now,
  }
  tx.put('onboardings', next)
  tx.put('users', approvedUser)
  await ctx.events.record(tx, row.partner_id, 'onboarding.completed', onboardingEventObject(next))
  await ctx.events.record(tx, row.partner_id, 'card.created', {
    object: 'card',
    user_id: user.id,
    ...publicCard(card),
  })
  await ctx.events.record(tx, row.partner_id, 'user.updated', publicUser(ctx, approvedUser))
  return next
}

async function decline(
  ctx: OnboardingCtx,
  tx: StateTx,
  row: OnboardingRow,
  user: UserRow,
  reason: string,
  kycPassed: boolean,
): Promise<OnboardingRow> {
  const now = ctx.clocks.forPartner(row.partner_id).iso()
  const next: OnboardingRow = {
    ...row,
    status: 'failed',
    consumer_kyc_status: kycPassed ? 'approved' : 'rejected',
    failure_reason: reason,
    review_resolves_at: null,
    updated_at: now,
  }
  const fresh = (await tx.get('users', user.id)) ?? user
  tx.put('onboardings', next)
  tx.put('users', { ...fresh, kyc_status: kycPassed ? 'approved' : 'rejected', updated_at: now })
  await ctx.events.record(tx, row.partner_id, 'onboarding.failed', onboardingEventObject(next))
  return next
}

/** Identity verification passed for these failures (they come after it in the flow). */
const kycPassedFor = (reason: string) =>
  reason === 'underwriting_declined' || reason === 'agreement_declined'

/** The onboarding with its user and card as they are now. */
export async function completionOf(reader: StateReader, row: OnboardingRow): Promise<Completion> {
  return {
    onboarding: row,
    user: await reader.get('users', row.user_id),
    card: row.card_id ? await reader.get('cards', row.card_id) : undefined,
  }
}
