import { partnerOrigins } from '../domain/allowed-origins.js'
import { currentCard } from '../domain/cards.js'
import { autoCompleteIfAsked, completeFromFlow } from '../domain/flow-completion.js'
import { type FlowEnd, walkFlow } from '../domain/flow-walk.js'
import {
  type OnboardingCtx,
  type OnboardingInput,
  onboardingHistory,
  type StartedOnboarding,
  startOnboarding,
} from '../domain/onboarding.js'
import { EmbedLinkError, openWithToken, type Step, submitStep } from '../domain/onboarding-flow.js'
import {
  type Completion,
  type CompletionInput,
  completeOnboarding,
  resolveReview,
} from '../domain/onboarding-outcome.js'
import { requireActivePartner } from '../domain/partner-status.js'
import { redirectUriProblem } from '../domain/redirect-uri.js'
import { isDue, type SweepScope } from '../domain/sweeper.js'
import { ApiError } from '../errors.js'
import type { State, StateReader } from '../state/seam.js'
import type { CardRow, OnboardingRow, PartnerRow, UserRow } from '../store/records.js'

/** Told the partner a hosted request belongs to, once its token and status checked out. */
export type OnPartner = (partner: PartnerRow) => void

/** An onboarding as its hosted page and the page's status poll read it. */
export interface FlowState {
  onboarding: OnboardingRow
  card: CardRow | undefined
}

/** A flow walked headlessly: the steps taken, and the onboarding after them. */
export interface WalkedFlow extends FlowState {
  steps: Step[]
}

/** What the hosted page is drawn from. */
export interface HostedPage extends FlowState {
  partner: PartnerRow | undefined
  /** The partner's allowed origins (exact and any-port), normalized. */
  origins: string[]
  redirectUri: string | null
}

/**
 * Card onboarding: the partner's start, completion and status calls, the hosted flow's page
 * and steps, the dashboard's completion, and manual reviews that come due. Each method that
 * writes runs one transaction.
 */
export class Onboarding {
  private readonly state: State
  private readonly ctx: OnboardingCtx

  constructor({ state, ...ctx }: OnboardingCtx & { state: State }) {
    this.state = state
    this.ctx = ctx
  }

  start(partner: PartnerRow, user: UserRow, input: OnboardingInput): Promise<StartedOnboarding> {
    return this.state.transaction((tx) => startOnboarding(this.ctx, tx, partner, user, input), {
      partner: partner.id,
    })
  }

  /** The user's most recent onboarding. */
  async latest(user: UserRow): Promise<OnboardingRow | undefined> {
    return (await onboardingHistory(this.state.tenant(user.partner_id), user.id))[0]
  }

  /** The user's latest onboarding and card, for the card status. */
  async cardStatus(user: UserRow): Promise<{ onboarding?: OnboardingRow; card?: CardRow }> {
    const [onboarding, card] = await Promise.all([
      this.latest(user),
      currentCard(this.state.tenant(user.partner_id), user.id),
    ])
    return { onboarding, card }
  }

  complete(
    partner: PartnerRow,
    user: UserRow,
    id: string,
    input: CompletionInput,
  ): Promise<Completion> {
    return this.state.transaction(
      (tx) => completeOnboarding(this.ctx, tx, partner, user, id, input),
      { partner: partner.id },
    )
  }

  /** Completes a finished hosted flow for the partner (the dashboard's button). */
  completeFromFlow(id: string): Promise<Completion> {
    return this.state.transaction(async (tx) =>
      completeFromFlow(this.ctx, tx, await this.byId(tx, id)),
    )
  }

  /**
   * Walks the hosted flow headlessly to `end` (the control plane's walk), then completes it
   * when the partner's `auto_complete` asks, as after the page's last step.
   */
  walk(id: string, end: FlowEnd): Promise<WalkedFlow> {
    return this.state.transaction(async (tx) => {
      const walked = walkFlow(this.ctx, tx, await this.byId(tx, id), end)
      await autoCompleteIfAsked(this.ctx, tx, walked.onboarding)
      const onboarding = (await tx.get('onboardings', id)) ?? walked.onboarding
      return { ...walked, onboarding, card: await this.issuedCard(tx, onboarding) }
    })
  }

  /**
   * The hosted page of an access token. A `redirectUri` on the link itself must meet the same
   * rule as one given at start.
   */
  async openPage(
    id: string | undefined,
    token: string | undefined,
    redirectUri: string | undefined,
    onPartner: OnPartner,
  ): Promise<HostedPage> {
    const { onboarding, partner } = await this.open(this.state, id, token, onPartner)
    const origins = partnerOrigins(partner?.allowed_origins)
    const redirect = redirectUri ?? onboarding.redirect_uri
    if (redirect && redirect !== onboarding.redirect_uri && redirectUriProblem(redirect, origins)) {
      throw new EmbedLinkError('redirect_not_allowed')
    }
    const card = await this.issuedCard(this.state, onboarding)
    return { onboarding, card, partner, origins, redirectUri: redirect ?? null }
  }

  /** The state the hosted page polls for. */
  async flowState(id: string, token: string | undefined, onPartner: OnPartner): Promise<FlowState> {
    const { onboarding } = await this.open(this.state, id, token, onPartner)
    return { onboarding, card: await this.issuedCard(this.state, onboarding) }
  }

  /**
   * One step the hosted page posted; a step that ends the flow completes the onboarding too
   * when the partner's `auto_complete` asks. Answers the onboarding after the step.
   */
  submitStep(
    id: string,
    token: string | undefined,
    step: Step,
    body: Record<string, unknown>,
    onPartner: OnPartner,
  ): Promise<OnboardingRow> {
    return this.state.transaction(async (tx) => {
      const { onboarding } = await this.open(tx, id, token, onPartner)
      const next = submitStep(this.ctx, tx, onboarding, step, body)
      if (next.flow_result) await autoCompleteIfAsked(this.ctx, tx, next)
      return next
    })
  }

  /** Sweep task: manual reviews whose time has come end as the scenario said. */
  async resolveDueReviews(scope: SweepScope): Promise<void> {
    const rows =
      scope.partnerId === undefined
        ? await this.state.lookup('onboardings_in_review', 'waiting')
        : await this.state.lookup('onboardings_in_review_by_partner', scope.partnerId)
    const due = (row: OnboardingRow) => isDue(scope, row.partner_id, row.review_resolves_at)
    for (const row of rows) {
      if (!due(row)) continue
      await this.state.transaction((tx) => resolveReview(this.ctx, tx, row.id, due))
    }
  }

  /** The onboarding a token opens, of a partner that is active (a public route's checks). */
  private async open(
    reader: StateReader,
    id: string | undefined,
    token: string | undefined,
    onPartner: OnPartner,
  ) {
    const onboarding = await openWithToken(this.ctx, reader, id, token)
    const partner = await requireActivePartner(reader, onboarding.partner_id)
    onPartner(partner)
    return { onboarding, partner }
  }

  private async byId(reader: StateReader, id: string): Promise<OnboardingRow> {
    const row = await reader.get('onboardings', id)
    if (!row) throw new ApiError('not_found', `No onboarding with id ${id}.`)
    return row
  }

  private async issuedCard(reader: StateReader, row: OnboardingRow) {
    return row.card_id ? reader.get('cards', row.card_id) : undefined
  }
}
