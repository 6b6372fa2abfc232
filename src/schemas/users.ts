import { z } from '@hono/zod-openapi'
import * as ex from './examples.js'
import { userFields } from './fields.js'
import { multiLine, singleLine } from './text.js'

/** Lower-cased, trimmed email: the same person is the same user whatever the casing. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email('must be a valid email address').max(254))
  .openapi({ example: 'jane.doe@example.com' })

/** E.164 after removing spaces, dashes, dots and brackets; 10 digits are read as a US number. */
export function normalizePhone(raw: string): string {
  const digits = raw.replace(/[\s\-.()]/g, '')
  if (/^\d{10}$/.test(digits)) return `+1${digits}`
  if (/^1\d{10}$/.test(digits)) return `+${digits}`
  return digits
}
export const PhoneNumber = z
  .string()
  .transform(normalizePhone)
  .pipe(
    z.string().regex(/^\+[1-9]\d{7,14}$/, 'must be a phone number such as +14155550123 (E.164)'),
  )
  .openapi({ example: '+14155550123' })

/** 8–128 characters with at least three of: lower case, upper case, digit, symbol. */
export const Password = singleLine(
  z.string().min(8, 'must be at least 8 characters').max(128, 'must be at most 128 characters'),
)
  .refine(
    (p) => [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(p)).length >= 3,
    'is too weak: use at least three of lower case, upper case, digits and symbols',
  )
  .openapi({ example: 'Sandbox-Passw0rd!' })

export const Ssn = z
  .string()
  .transform((s) => s.replace(/[\s-]/g, ''))
  .pipe(z.string().regex(/^\d{9}$/, 'must be 9 digits (dashes and spaces are ignored)'))
  .openapi({ example: '123-45-6789', description: 'Normalized to 9 digits; never returned.' })

/** A real calendar date written YYYY-MM-DD. (The adult-age rule needs the sandbox clock: see domain.) */
export const CalendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
  .refine(
    (s) => {
      // Must not throw on any string, whatever ran before it.
      const date = new Date(`${s}T00:00:00Z`)
      return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(s)
    },
    // Only when the pattern passed: one clear message per bad value.
    { message: 'is not a real calendar date', when: (payload) => payload.issues.length === 0 },
  )
  .openapi({ example: '1990-04-12' })

export const PersonName = singleLine(z.string().trim().min(1, 'must not be empty').max(100))

export const Address = z
  .object({
    line1: singleLine(z.string().trim().max(200)).optional(),
    line2: singleLine(z.string().trim().max(200)).optional(),
    city: singleLine(z.string().trim().max(100)).optional(),
    state: singleLine(z.string().trim().max(100)).optional(),
    zip: singleLine(z.string().trim().max(20)).optional(),
    country_code: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as US')
      .optional(),
  })
  .strict()
  .openapi('Address', { example: ex.address })

export const Metadata = z
  .record(
    singleLine(z.string().min(1).max(40)),
    z.union([multiLine(z.string().max(500)), z.number(), z.boolean(), z.null()]),
  )
  .refine((m) => Object.keys(m).length <= 50, 'may hold at most 50 keys')
  .openapi({
    description: 'Merged key by key into the stored metadata; a key set to null is removed.',
  })

/**
 * The stored user without its secrets (userFields); the input schemas above check the values.
 * Its addresses are shown as the requests take them (`Address`).
 */
export const User = z
  .object({
    ...userFields,
    address: Address,
    secondary_address: Address,
    provider_consumer_id: userFields.provider_consumer_id.clone().openapi({
      description:
        "null until the user's card onboarding completes with a pass: the card provider creates its consumer only at approval. Then the onboarding's consumerId.",
    }),
    kyc_status: userFields.kyc_status.clone().openapi({ example: 'approved' }),
  })
  .openapi('User', {
    example: ex.user,
    description: 'The `ssn` is never returned.',
  })

export const PatchUserBody = z
  .object({
    first_name: PersonName.optional(),
    last_name: PersonName.optional(),
    date_of_birth: CalendarDate.optional(),
    address: Address.optional(),
    secondary_address: Address.optional(),
    metadata: Metadata.optional(),
  })
  .strict()
  .openapi('PatchUser', {
    example: { first_name: 'Janet', address: ex.address, metadata: { crm_id: 'C-1042' } },
    description: 'id, partner_id, email and phone_number cannot be changed.',
  })

export const ProfilePictureBody = z
  .object({
    profile_picture: z.any().openapi({
      type: 'string',
      format: 'binary',
      description: 'PNG, JPEG or WebP, checked by content.',
    }),
  })
  .openapi('ProfilePictureUpload')

export const ProfilePictureResult = z
  .object({ profile_picture_url: z.url() })
  .openapi('ProfilePictureResult', {
    example: { profile_picture_url: 'http://127.0.0.1:4010/files/pic_8Kd2Lm5Qx9Rt' },
  })
