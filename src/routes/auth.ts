import { OpenAPIHono } from '@hono/zod-openapi'
import { maskEmail } from '../domain/login.js'
import { publicUser } from '../domain/users.js'
import { accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import type { TagName } from '../openapi/tags.js'
import {
  ChangePasswordBody,
  CodeSent,
  ForgotRequestBody,
  ForgotResetBody,
  ForgotVerifyBody,
  LoginBody,
  Message,
  PasswordChanged,
  RegisterBody,
  Registered,
  ResetToken,
  Session,
  VerifyOtpBody,
} from '../schemas/auth.js'
import { errorResponses, jsonBody, jsonResponse, orgErrors } from '../schemas/common.js'
import type { Accounts } from '../services/accounts.js'

const tags: TagName[] = ['Authentication']
const bodyErrors = [400, 413, 415] as const

export function authRoutes(s: { accounts: Accounts; baseUrl(): string }) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.openapi(
    accessRoute('org', {
      method: 'post',
      path: '/partner/auth/register',
      operationId: 'registerUser',
      tags,
      summary: 'Register an end user',
      description:
        'The email is unique within the partner (409 otherwise). The password is stored only hashed; the SSN is never returned.',
      request: { body: jsonBody(RegisterBody) },
      responses: {
        201: jsonResponse(Registered, 'The new user.'),
        ...errorResponses(...bodyErrors, ...orgErrors, 409),
      },
    }),
    async (c) => {
      const user = await s.accounts.register(c.get('partner').id, c.req.valid('json'))
      return c.json(
        {
          userId: user.id,
          email: user.email,
          message: 'Registered. Log in with POST /partner/auth/login.',
        },
        201,
      )
    },
  )

  app.openapi(
    accessRoute('org', {
      method: 'post',
      path: '/partner/auth/login',
      operationId: 'loginUser',
      tags,
      summary: 'Send a one-time login code',
      description:
        'Right email and password: a 6-digit code valid 10 minutes is sent (read it at GET /_sandbox/inbox). ' +
        'An unknown email and a wrong password get the same 401. A new code replaces the previous one.',
      request: { body: jsonBody(LoginBody) },
      responses: {
        200: jsonResponse(CodeSent, 'A code was sent.'),
        ...errorResponses(...bodyErrors, ...orgErrors),
      },
    }),
    async (c) => {
      const { email, password } = c.req.valid('json')
      const { user, code } = await s.accounts.startLogin(c.get('partner'), email, password)
      return c.json(
        {
          message: `A one-time code was sent to ${maskEmail(user.email)}. It expires in 10 minutes.`,
          channel: 'email' as const,
          destination: maskEmail(user.email),
          expiresAt: Date.parse(code.expires_at),
        },
        200,
      )
    },
  )

  app.openapi(
    accessRoute('org', {
      method: 'post',
      path: '/partner/auth/verify-otp',
      operationId: 'verifyOtp',
      tags,
      summary: 'Exchange the one-time code for a session token',
      description:
        'A code works once; 5 wrong tries burn it; it expires after 10 minutes (sandbox clock).',
      request: { body: jsonBody(VerifyOtpBody) },
      responses: {
        200: jsonResponse(Session, 'The session.'),
        ...errorResponses(...bodyErrors, ...orgErrors),
      },
    }),
    async (c) => {
      const { email, code } = c.req.valid('json')
      const { user, token, expiresAt } = await s.accounts.verifyLogin(c.get('partner'), email, code)
      return c.json({ sessionToken: token, expiresAt, user: publicUser(s, user) }, 200)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'post',
      path: '/partner/auth/logout',
      operationId: 'logoutUser',
      tags,
      summary: 'End the current session',
      responses: {
        200: jsonResponse(Message, 'The session token no longer works.'),
        ...errorResponses(...orgErrors),
      },
    }),
    async (c) => {
      await s.accounts.logout(c.get('session'))
      return c.json({ message: 'Logged out. This session token no longer works.' }, 200)
    },
  )

  app.openapi(
    accessRoute('session', {
      method: 'post',
      path: '/partner/auth/change-password',
      operationId: 'changePassword',
      tags,
      summary: 'Change the password (every other session ends)',
      request: { body: jsonBody(ChangePasswordBody) },
      responses: {
        200: jsonResponse(PasswordChanged, 'Changed.'),
        ...errorResponses(...bodyErrors, ...orgErrors),
      },
    }),
    async (c) => {
      const { current_password, new_password } = c.req.valid('json')
      const revoked = await s.accounts.changePassword(
        c.get('user'),
        c.get('session').id,
        current_password,
        new_password,
      )
      return c.json(
        {
          message: 'Password changed. Every other session of this user was ended.',
          sessions_revoked: revoked,
        },
        200,
      )
    },
  )

  app.openapi(
    accessRoute('org', {
      method: 'post',
      path: '/partner/auth/forgot-password/request',
      operationId: 'requestPasswordReset',
      tags,
      summary: 'Send a password reset code',
      description: 'Always 200 with the same message, whether or not the email is known.',
      request: { body: jsonBody(ForgotRequestBody) },
      responses: {
        200: jsonResponse(Message, 'Sent if the account exists.'),
        ...errorResponses(...bodyErrors, ...orgErrors),
      },
    }),
    async (c) => {
      await s.accounts.requestPasswordReset(c.get('partner'), c.req.valid('json').email)
      // Always the same answer, whether or not the email is known.
      return c.json(
        { message: 'If an account exists for this email, a password reset code was sent to it.' },
        200,
      )
    },
  )

  app.openapi(
    accessRoute('org', {
      method: 'post',
      path: '/partner/auth/forgot-password/verify',
      operationId: 'verifyPasswordResetCode',
      tags,
      summary: 'Exchange the reset code for a reset token',
      request: { body: jsonBody(ForgotVerifyBody) },
      responses: {
        200: jsonResponse(ResetToken, 'The reset token.'),
        ...errorResponses(...bodyErrors, ...orgErrors),
      },
    }),
    async (c) => {
      const { email, code } = c.req.valid('json')
      const { token, expiresAt } = await s.accounts.verifyPasswordReset(
        c.get('partner'),
        email,
        code,
      )
      return c.json(
        {
          reset_token: token,
          expiresAt,
          message:
            'Code verified. Send reset_token with the new password to /partner/auth/forgot-password/reset.',
        },
        200,
      )
    },
  )

  app.openapi(
    accessRoute('org', {
      method: 'post',
      path: '/partner/auth/forgot-password/reset',
      operationId: 'resetPassword',
      tags,
      summary: 'Set a new password with the reset token (every session ends)',
      request: { body: jsonBody(ForgotResetBody) },
      responses: {
        200: jsonResponse(PasswordChanged, 'Reset.'),
        ...errorResponses(...bodyErrors, ...orgErrors),
      },
    }),
    async (c) => {
      const { email, reset_token, new_password } = c.req.valid('json')
      const revoked = await s.accounts.resetPassword(
        c.get('partner'),
        email,
        reset_token,
        new_password,
      )
      return c.json(
        {
          message:
            'Password reset. Every session of this user was ended; log in with the new password.',
          sessions_revoked: revoked,
        },
        200,
      )
    },
  )

  return app
}
