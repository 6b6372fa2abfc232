import type { EventType } from '../domain/events.js'

/** Every event kind the sandbox emits, with what it means (GET /partner/webhooks/events). */
export const eventCatalogue: Record<EventType, string> = {
  'user.created': 'A user registered (POST /partner/auth/register).',
  'user.updated': 'A user profile changed (PATCH /partner/users/me, profile picture).',
  'onboarding.started': 'A card onboarding session started.',
  'onboarding.completed': 'An onboarding passed; the user is approved.',
  'onboarding.failed': 'An onboarding failed (KYC, underwriting or declined agreement).',
  'card.created': 'A card was issued to the user.',
  'card.funded': 'The card was funded through the sandbox shortcut (simulate-fund).',
  'deposit.created': 'A deposit from a connected bank account was created (pending).',
  'deposit.succeeded': 'A deposit settled and credited the card.',
  'deposit.failed': 'A deposit failed to settle.',
  'card_transaction.created': 'A card transaction (authorization, funding…) was created.',
  'card_transaction.updated': 'A card transaction changed state (cleared, reversed, refunded).',
  'dispute.created': 'A dispute was opened on a card transaction.',
  'dispute.updated': 'A dispute changed state (evidence, won, lost).',
  'external_bank_account.created': 'A bank account was connected.',
  'api_key.rotated': 'The partner API key and secret were rotated.',
  'webhook.test': 'A test event sent on request to one endpoint.',
}
