import { z } from '@hono/zod-openapi'
import type { Inbox, InboxMessage as StoredMessage } from '../domain/inbox.js'
import { errorResponses, jsonResponse } from '../schemas/common.js'
import * as ex from '../schemas/examples.js'
import { UserId } from '../schemas/ids.js'
import { limitParam } from '../schemas/limit.js'
import type { Accounts } from '../services/accounts.js'
import { controlRoute, controlRouter } from './router.js'
import { OkOnly } from './schemas.js'

export const InboxMessage = z
  .object({
    id: z.string(),
    partner_id: z.uuid(),
    user_id: z.uuid(),
    to: z.string(),
    channel: z.literal('email'),
    kind: z.enum(['login_code', 'password_reset_code']),
    subject: z.string(),
    body: z.string().openapi({
      description: 'The text sent; the code is taken out of it once used or expired.',
    }),
    code: z.string().nullable().openapi({
      example: '000000',
      description:
        'The code while it can be used; null once it was used or expired (`code_ended`), so no usable secret is kept beyond its life.',
    }),
    code_ended: z.enum(['used', 'expired']).nullable().openapi({
      description: 'Why `code` is null: used (verified), or expired unused. Null while it lives.',
    }),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .openapi('SandboxInboxMessage', {
    example: {
      id: 'msg_4Tq9Lw2Xc7Rb',
      partner_id: ex.ids.partner,
      user_id: ex.ids.user,
      to: ex.user.email,
      channel: 'email',
      kind: 'login_code',
      subject: 'Your Acme Fintech login code',
      body: 'Your code is 000000. It expires in 10 minutes.',
      code: '000000',
      code_ended: null,
      created_at: '2026-03-02T10:16:00.000Z',
      expires_at: '2026-03-02T10:26:00.000Z',
    },
  })

const InboxQuery = z.object({
  email: z.string().optional().openapi({ description: 'Recipient, case-insensitive.' }),
  partner_id: z.uuid().optional(),
  kind: z.enum(['login_code', 'password_reset_code']).optional(),
  limit: limitParam(500, 50),
})

/** A message as the inbox shows it: the code row it carries is the sandbox's own business. */
function publicMessage({ code_id: _, code_ended, ...message }: StoredMessage) {
  return { ...message, code_ended: code_ended ?? null }
}

/** Control-plane routes about end users: the inbox of sent codes, and ending sessions. */
export function controlUserRoutes(s: { accounts: Accounts; inbox: Inbox }) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/inbox',
      operationId: 'listInbox',
      summary: 'Messages the sandbox "sent" (login and reset codes), newest first',
      description: 'Held in memory only: codes never reach the data file.',
      request: { query: InboxQuery },
      responses: {
        200: jsonResponse(
          z.object({
            data: z.array(InboxMessage),
            has_more: z.boolean().openapi({ example: false }),
          }),
          'The messages.',
        ),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const query = c.req.valid('query')
      const found = await s.inbox.list({ ...query, limit: query.limit + 1 })
      return c.json(
        {
          data: found.slice(0, query.limit).map(publicMessage),
          has_more: found.length > query.limit,
        },
        200,
      )
    },
  )

  app.openapi(
    controlRoute({
      method: 'delete',
      path: '/inbox',
      operationId: 'clearInbox',
      summary: 'Empty the inbox',
      responses: {
        200: jsonResponse(OkOnly, 'Emptied.'),
        ...errorResponses(401),
      },
    }),
    async (c) => {
      await s.inbox.clear()
      return c.json({ ok: true as const }, 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/users/{id}/sessions/expire',
      operationId: 'expireUserSessions',
      summary: "Expire all of a user's sessions now",
      description:
        'Their tokens get 401 "expired" from the next request on, as if their lifetime had run out.',
      request: { params: z.object({ id: UserId }) },
      responses: {
        200: jsonResponse(
          z.object({ expired: z.number().int().openapi({ example: 2 }) }),
          'How many live sessions were expired.',
        ),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json({ expired: await s.accounts.expireSessions(c.req.valid('param').id) }, 200),
  )

  return app
}
