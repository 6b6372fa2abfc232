import { z } from 'zod'

/**
 * The spec writes two names as neutral placeholders: the webhook signature header
 * (`X-Service-Signature`, "the header name carries the service's name") and the provider's
 * word in field names (`provider_consumer_id`, "the field name carries the provider's name").
 * Production uses the real names; these settings (flag, environment, per partner) make the
 * sandbox answer, deliver and document with them, so a partner's code is tested against the
 * names it will meet. The defaults stay the spec's words.
 */

export const SPEC_SIGNATURE_HEADER = 'X-Service-Signature'
export const SPEC_PROVIDER_WORD = 'provider'

/** Headers a delivery sends anyway: a signature header must not take their place. */
const TAKEN_HEADERS = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'host',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
])

export const signatureHeaderName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9-]{0,63}$/, 'must be a header name: letters, digits and dashes')
  .refine(
    (name) => !TAKEN_HEADERS.has(name.toLowerCase()) && !/^x-sandbox-/i.test(name),
    'must not be a header every delivery already sends (content-type, webhook-*, x-sandbox-*)',
  )

export const providerWord = z
  .string()
  .regex(/^[a-z][a-z0-9]{0,31}$/, 'must be lowercase letters and digits, starting with a letter')

/** A partner's own names as the control plane sets them: null puts the sandbox's back. */
export interface PartnerNamesPatch {
  signature_header?: string | null
  provider?: string | null
}

/** The partner's `names` after `patch`; undefined when none is left of its own. */
export function patchedNames(
  current: { signature_header?: string; provider?: string } | undefined,
  patch: PartnerNamesPatch,
): { signature_header?: string; provider?: string } | undefined {
  const next = { ...current }
  for (const key of ['signature_header', 'provider'] as const) {
    const value = patch[key]
    if (value === null) delete next[key]
    else if (value !== undefined) next[key] = value
  }
  return Object.keys(next).length ? next : undefined
}

/** The names a partner's traffic carries. */
export interface ProductionNames {
  signatureHeader: string
  provider: string
}

export const specNames: ProductionNames = {
  signatureHeader: SPEC_SIGNATURE_HEADER,
  provider: SPEC_PROVIDER_WORD,
}

/** The partner's own names over the sandbox's (flag or environment). */
export function namesOf(
  sandbox: ProductionNames,
  partner?: { names?: { signature_header?: string; provider?: string } } | undefined,
): ProductionNames {
  return {
    signatureHeader: partner?.names?.signature_header ?? sandbox.signatureHeader,
    provider: partner?.names?.provider ?? sandbox.provider,
  }
}

const PROVIDER_FIELD = /^provider_/

/**
 * `value` with every `provider_…` key spelled with `provider`'s word instead; the value
 * itself when the word is the spec's (nothing to do, no copy).
 */
export function renameProviderFields<T>(value: T, provider: string): T {
  if (provider === SPEC_PROVIDER_WORD) return value
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (v === null || typeof v !== 'object') return v
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(v)) {
      out[PROVIDER_FIELD.test(key) ? key.replace(PROVIDER_FIELD, `${provider}_`) : key] =
        walk(inner)
    }
    return out
  }
  return walk(value) as T
}

/**
 * A document (the OpenAPI JSON) with both names replaced wherever it spells them: schema
 * keys, `required` lists, examples and descriptions alike.
 */
export function renameInDocument<T>(doc: T, names: ProductionNames): T {
  if (names.provider === SPEC_PROVIDER_WORD && names.signatureHeader === SPEC_SIGNATURE_HEADER)
    return doc
  const text = JSON.stringify(doc)
    .replace(/\bprovider_(?=[a-z])/g, `${names.provider}_`)
    .replaceAll(SPEC_SIGNATURE_HEADER, names.signatureHeader)
  return JSON.parse(text) as T
}
