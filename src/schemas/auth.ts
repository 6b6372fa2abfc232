import { z } from '@hono/zod-openapi'
import { CalendarDate, Email, Password, PersonName, PhoneNumber, Ssn, User } from './users.js'

export const RegisterBody = z
  .object({
    email: Email,
    phone_number: PhoneNumber,
    first_name: PersonName,
    last_name: PersonName,
    password: Password,
    ssn: Ssn,
    date_of_birth: CalendarDate,
  })
  .strict()
  .openapi('Register')

export const Registered = z
  .object({ userId: z.uuid(), email: z.string(), message: z.string() })
  .openapi('Registered')

export const LoginBody = z
  // No upper bound that would tell a long wrong password apart from a short one: both get 401.
  .object({ email: Email, password: z.string().min(1, 'is required').max(4096) })
  .strict()
  .openapi('Login')

export const CodeSent = z
  .object({
    message: z.string(),
    channel: z.literal('email'),
    destination: z.string().openapi({ example: 'j*******@example.com' }),
    expiresAt: z
      .number()
      .int()
      .openapi({ description: 'Epoch milliseconds when the code stops working.' }),
  })
  .openapi('CodeSent')

export const OtpCode = z.string().regex(/^\d{6}$/, 'must be the 6-digit code')

export const VerifyOtpBody = z.object({ email: Email, code: OtpCode }).strict().openapi('VerifyOtp')

export const Session = z
  .object({
    sessionToken: z.string().openapi({ description: 'HS256 JWT bound to a stored session.' }),
    expiresAt: z
      .number()
      .int()
      .openapi({ description: 'Epoch milliseconds.', example: 1767225600000 }),
    user: User,
  })
  .openapi('Session')

export const Message = z.object({ message: z.string() }).openapi('Message')

export const ChangePasswordBody = z
  .object({ current_password: z.string().min(1, 'is required').max(128), new_password: Password })
  .strict()
  .openapi('ChangePassword')

export const PasswordChanged = z
  .object({ message: z.string(), sessions_revoked: z.number().int() })
  .openapi('PasswordChanged')

export const ForgotRequestBody = z
  .object({ email: Email })
  .strict()
  .openapi('ForgotPasswordRequest')

export const ForgotVerifyBody = z
  .object({ email: Email, code: OtpCode })
  .strict()
  .openapi('ForgotPasswordVerify')

export const ResetToken = z
  .object({
    reset_token: z.string().openapi({ description: 'Single use; valid 15 minutes.' }),
    expiresAt: z.number().int(),
    message: z.string(),
  })
  .openapi('ResetToken')

export const ForgotResetBody = z
  .object({ email: Email, reset_token: z.string().min(1, 'is required'), new_password: Password })
  .strict()
  .openapi('ForgotPasswordReset')
