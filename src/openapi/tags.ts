/**
 * The groups of the document, in the order a reader meets them on the happy path, each with
 * what it holds. Routes name their group from this table (a typo does not compile), and the
 * document lists it as its top-level `tags`.
 */
export const tagDescriptions = {
  Authentication:
    'Register end users and log them in with a one-time code (spec section 4, authentication group): register, login, verify-otp, logout, change and forgotten passwords. Organization headers; a session where noted.',
  'User profile': "The logged-in user's own record: read, update, profile picture.",
  'Card onboarding':
    "Start the hosted KYC, underwriting and agreement flow, resume it, and complete it with the flow's outcome.",
  'Hosted onboarding (embed)':
    'The steps the hosted onboarding page posts, with the access token of the onboarding start response. The page itself is at `onboardingEmbedUrl`.',
  Cards: "The user's card: onboarding state, KYC status and balances.",
  'Funding and cards':
    'Money in (the sandbox funding shortcut, deposits from a connected bank account), card transactions, simulated purchases, freeze and unfreeze.',
  Transactions: "The user's transactions with filters, and the sandbox's purchase lifecycle.",
  Disputes: 'Dispute a posted purchase: a provisional credit, evidence, an outcome on the clock.',
  'External bank accounts':
    'Connect a bank account through the hosted connect page, list and remove connected accounts.',
  'Partner organization':
    'The partner record, its usage and its credentials. Organization headers only.',
  Webhooks:
    'Webhook endpoints, their signing secrets and their delivery logs. Organization headers only.',
  'Sandbox control':
    'The sandbox control plane (`/_sandbox`, outside the API): partners, clocks, inbox, scenarios, rules, webhook sinks, snapshots. Not part of the real service.',
} as const

export type TagName = keyof typeof tagDescriptions

/** The document's top-level `tags`. */
export const documentTags = Object.entries(tagDescriptions).map(([name, description]) => ({
  name,
  description,
}))
