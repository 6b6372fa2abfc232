/**
 * Which parts of the document the spec fixes and which the sandbox chose where the spec is
 * silent (issue 41): every operation, component schema and field carries `x-provenance`
 * (`spec` or `sandbox`) and a sentence saying so, so a partner generating types from
 * /openapi.json knows which shapes are guesses. docs/contract-decisions.md lists the choices,
 * the real APIs they follow and what not to hard-code.
 */

export type Provenance = 'spec' | 'sandbox'

/**
 * The operations whose method and path the spec names (sections 1, 4, 5 and 6). Other
 * operations are the sandbox's: the spec says only that routes exist under a prefix
 * (`/partner/transactions/*`, the forgot-password routes, the other webhook routes), or they
 * are the sandbox's own (control plane, hosted flow).
 */
const specOperations = new Set([
  'getPartner',
  'updatePartner',
  'rotateApiKey',
  'getPartnerUsage',
  'registerUser',
  'loginUser',
  'verifyOtp',
  'logoutUser',
  'changePassword',
  'getCurrentUser',
  'updateCurrentUser',
  'uploadProfilePicture',
  'createWebhook',
  'listWebhookDeliveries',
  'startCardOnboarding',
  'getLatestCardOnboarding',
  'completeCardOnboarding',
  'getCardStatus',
  'simulateFund',
  'createDeposit',
  'listCardTransactions',
  'openBankConnectPage',
  'enrollBankAccount',
  'receiveEvent',
])

/**
 * The schemas whose shape the spec shows, with the fields it names (section 2's records, the
 * request bodies of section 4). Their other fields, and every other schema, are the sandbox's.
 */
const specFields: Record<string, readonly string[]> = {
  Partner: [
    'id',
    'name',
    'display_name',
    'slug',
    'api_key',
    'allowed_origins',
    'webhook_url',
    'scopes',
    'rate_limit',
    'status',
    'contact_email',
    'contact_name',
    'config',
  ],
  PartnerEnvelope: ['partner'],
  PatchPartner: [
    'display_name',
    'contact_email',
    'contact_name',
    'allowed_origins',
    'webhook_url',
    'config',
  ],
  RotatedCredentials: ['api_key', 'api_secret', 'message'],
  Usage: ['rate_limit', 'status', 'scopes', 'last_24h', 'totals'],
  Register: [
    'email',
    'phone_number',
    'first_name',
    'last_name',
    'password',
    'ssn',
    'date_of_birth',
  ],
  Registered: ['userId', 'email'],
  Login: ['email', 'password'],
  VerifyOtp: ['email', 'code'],
  Session: ['sessionToken', 'expiresAt', 'user'],
  User: [
    'id',
    'partner_id',
    'email',
    'phone_number',
    'first_name',
    'last_name',
    'date_of_birth',
    'address',
    'secondary_address',
    'provider_consumer_id',
    'kyc_status',
    'metadata',
    'is_active',
    'created_at',
    'updated_at',
  ],
  PatchUser: [
    'first_name',
    'last_name',
    'date_of_birth',
    'address',
    'secondary_address',
    'metadata',
  ],
  ProfilePictureUpload: ['profile_picture'],
  ProfilePictureResult: ['profile_picture_url'],
  CreateWebhook: ['url', 'events'],
  Webhook: ['url', 'events'],
  WebhookWithSecret: ['webhook', 'secret'],
  StartOnboarding: [
    'first_name',
    'last_name',
    'email',
    'phone_number',
    'country_code',
    'date_of_birth',
    'address_line1',
    'address_line2',
    'address_city',
    'address_state',
    'address_zip',
    'ssn',
  ],
  OnboardingStarted: ['success', 'data'],
  OnboardingSession: [
    'message',
    'onboardingEmbedUrl',
    'accessToken',
    'expiresIn',
    'onboardingId',
    'consumerId',
    'status',
    'consumerKycStatus',
  ],
  OnboardingProgress: ['onboardingId', 'consumerId', 'status', 'consumerKycStatus'],
  NoOnboarding: ['success', 'error'],
  CompleteOnboarding: [
    'result',
    'data',
    'agreement_accepted',
    'inquiry_id',
    'product_id',
    'product_configuration',
  ],
  SimulateFund: ['amount'],
  SimulateFundResult: ['message', 'availableBalance'],
}

const OPERATION_SENTENCE: Record<Provenance, string> = {
  spec: 'Provenance: the spec fixes this operation (method and path); shapes it does not show are marked `x-provenance: sandbox`.',
  sandbox:
    "Provenance: the sandbox chose this operation; the spec does not fix its path or shapes, so production's may differ.",
}
const SCHEMA_SENTENCE: Record<Provenance, string> = {
  spec: 'Provenance: the spec shows this shape; fields it does not name are marked `x-provenance: sandbox`.',
  sandbox:
    'Provenance: the sandbox chose this shape where the spec is silent (docs/contract-decisions.md); do not hard-code it.',
}
const FIELD_SENTENCE: Record<Provenance, string> = {
  spec: 'Provenance: fixed by the spec.',
  sandbox: 'Provenance: chosen by the sandbox where the spec is silent; do not hard-code it.',
}

type Node = Record<string, unknown>

const described = (node: Node, provenance: Provenance, sentence: string) => {
  node['x-provenance'] = provenance
  const before = typeof node.description === 'string' ? node.description : ''
  if (!before.includes('Provenance:'))
    node.description = before ? `${before} ${sentence}` : sentence
}

/** Marks each property of an object schema (and of the objects it combines). */
function markFields(schema: Node, named: readonly string[] | undefined) {
  const properties = schema.properties as Record<string, Node> | undefined
  for (const [field, property] of Object.entries(properties ?? {})) {
    const provenance: Provenance = named?.includes(field) ? 'spec' : 'sandbox'
    described(property, provenance, FIELD_SENTENCE[provenance])
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    for (const part of (schema[key] as Node[] | undefined) ?? []) markFields(part, named)
  }
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options']

/** The document with every operation, component schema and field marked; changed in place. */
export function markProvenance<T extends object>(document: T): T {
  // A copy: the generator may share one object between two places of the document.
  const doc = structuredClone(document)
  const d = doc as Node
  for (const group of [d.paths, d.webhooks] as (Record<string, Node> | undefined)[]) {
    for (const item of Object.values(group ?? {})) {
      for (const method of METHODS) {
        const operation = item[method] as Node | undefined
        if (!operation) continue
        const provenance: Provenance = specOperations.has(String(operation.operationId))
          ? 'spec'
          : 'sandbox'
        described(operation, provenance, OPERATION_SENTENCE[provenance])
      }
    }
  }
  const schemas = (d.components as Node | undefined)?.schemas as Record<string, Node> | undefined
  for (const [name, schema] of Object.entries(schemas ?? {})) {
    const named = specFields[name]
    const provenance: Provenance = named ? 'spec' : 'sandbox'
    described(schema, provenance, SCHEMA_SENTENCE[provenance])
    markFields(schema, named)
  }
  return doc
}
