import { OpenAPIHono } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import {
  changePassword,
  requestPasswordReset,
  resetPassword,
  startLogin,
  verifyLogin,
  verifyPasswordReset,
} from '../domain/login.js'
import { endSession } from '../domain/sessions.js'
import { registerUser } from '../domain/users.js'
import { accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
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

const tags = ['Authentication']
const bodyErrors = [400, 413, 415] as const

export function authRoutes(deps: Deps) {
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
      const body = c.req.valid('json')
      const user = await registerUser(deps, c.get('partner').id, body)
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
      return c.json(await startLogin(deps, c.get('partner'), email, password), 200)
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
      return c.json(await verifyLogin(deps, c.get('partner'), email, code), 200)
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
    (c) => {
      endSession(deps, c.get('session'))
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
      return c.json(
        await changePassword(
          deps,
          c.get('user'),
          c.get('session').id,
          current_password,
          new_password,
        ),
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
    (c) => c.json(requestPasswordReset(deps, c.get('partner'), c.req.valid('json').email), 200),
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
    (c) => {
      const { email, code } = c.req.valid('json')
      return c.json(verifyPasswordReset(deps, c.get('partner'), email, code), 200)
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
      return c.json(
        await resetPassword(deps, c.get('partner'), email, reset_token, new_password),
        200,
      )
    },
  )

  return app
}
