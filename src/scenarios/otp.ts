import { z } from 'zod'
import type { Random } from '../random.js'

/** The scenario's say on which one-time code is "sent" (login and password-reset codes). */
export const otpSection = z
  .object({
    code: z
      .string()
      .regex(/^\d{6}$/, 'a code is 6 digits')
      .optional()
      .describe(
        'The code every user gets (default 000000), unless random or a rule says otherwise.',
      ),
    random: z.boolean().optional().describe('Send a fresh random 6-digit code each time.'),
    rules: z
      .array(
        z
          .object({
            email: z
              .string()
              .min(1)
              .describe('Exact email, or a pattern with * wildcards such as *@qa.example.'),
            code: z
              .string()
              .regex(/^\d{6}$/, 'a code is 6 digits')
              .optional(),
            random: z.boolean().optional(),
          })
          .strict()
          .refine(
            (r) => (r.code === undefined) !== (r.random === undefined),
            'give exactly one of code, random',
          ),
      )
      .optional()
      .describe('Per-user codes; the first rule whose email matches wins.'),
  })
  .strict()

/** What these decisions read of a scenario: only its own sections (schema.ts imports this). */
type OtpScenario = { otp?: z.infer<typeof otpSection> }

export const DEFAULT_OTP_CODE = '000000'

export function emailMatches(pattern: string, email: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  )
  return regex.test(email)
}

export function decideOtpCode(scenario: OtpScenario, email: string, random: Random): string {
  const otp = scenario.otp
  const rule = otp?.rules?.find((r) => emailMatches(r.email, email))
  const wantsRandom = rule ? rule.random === true : otp?.random === true
  if (wantsRandom) return String(random.int(0, 999_999)).padStart(6, '0')
  return rule?.code ?? otp?.code ?? DEFAULT_OTP_CODE
}
