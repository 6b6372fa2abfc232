import { z } from '@hono/zod-openapi'
import * as ex from './examples.js'
import { singleLine } from './text.js'
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
  .openapi('Register', { example: ex.register })

export const Registered = z
  .object({ userId: z.uuid(), email: z.string(), message: z.string() })
  .openapi('Registered', {
    example: { userId: ex.ids.user, email: ex.user.email, message: 'User registered' },
  })

export const LoginBody = z
  // No upper bound that would tell a long wrong password apart from a short one: both get 401.
  .object({ email: Email, password: singleLine(z.string().min(1, 'is required').max(4096)) })
  .strict()
  .openapi('Login', { example: { email: ex.user.email, password: 'Sandbox-Passw0rd!' } })

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
  .openapi('CodeSent', {
    example: {
      message: 'A one-time code was sent to your email.',
      channel: 'email',
      destination: 'j*******@example.com',
      expiresAt: 1772446500000,
    },
  })

export const OtpCode = z.string().regex(/^\d{6}$/, 'must be the 6-digit code')

export const VerifyOtpBody = z
  .object({ email: Email, code: OtpCode })
  .strict()
  .openapi('VerifyOtp', { example: { email: ex.user.email, code: '000000' } })

export const Session = z
  .object({
    sessionToken: z.string().openapi({ description: 'HS256 JWT bound to a stored session.' }),
    expiresAt: z
      .number()
      .int()
      .openapi({ description: 'Epoch milliseconds.', example: 1767225600000 }),
    user: User,
  })
  .openapi('Session', {
    example: { sessionToken: ex.sessionToken, expiresAt: 1772532900000, user: ex.user },
  })

export const Message = z
  .object({ message: z.string() })
  .openapi('Message', { example: { message: 'Logged out' } })

export const ChangePasswordBody = z
  .object({
    current_password: singleLine(z.string().min(1, 'is required').max(128)),
    new_password: Password,
  })
  .strict()
  .openapi('ChangePassword', {
    example: { current_password: 'Sandbox-Passw0rd!', new_password: 'Another-Passw0rd!' },
  })

export const PasswordChanged = z
  .object({ message: z.string(), sessions_revoked: z.number().int() })
  .openapi('PasswordChanged', {
    example: { message: 'Password changed. Other sessions were signed out.', sessions_revoked: 1 },
  })

export const ForgotRequestBody = z
  .object({ email: Email })
  .strict()
  .openapi('ForgotPasswordRequest', { example: { email: ex.user.email } })

export const ForgotVerifyBody = z
  .object({ email: Email, code: OtpCode })
  .strict()
  .openapi('ForgotPasswordVerify', { example: { email: ex.user.email, code: '000000' } })

export const ResetToken = z
  .object({
    reset_token: z.string().openapi({ description: 'Single use; valid 15 minutes.' }),
    expiresAt: z.number().int(),
    message: z.string(),
  })
  .openapi('ResetToken', {
    example: {
      reset_token: 'rst_Vd3pQ7sLx2Nw9Zr4Tb6Ym1Kc',
      expiresAt: 1772447400000,
      message: 'Code verified. Use reset_token within 15 minutes.',
    },
  })

export const ForgotResetBody = z
  .object({ email: Email, reset_token: z.string().min(1, 'is required'), new_password: Password })
  .strict()
  .openapi('ForgotPasswordReset', {
    example: {
      email: ex.user.email,
      reset_token: 'rst_Vd3pQ7sLx2Nw9Zr4Tb6Ym1Kc',
      new_password: 'Another-Passw0rd!',
    },
  })
