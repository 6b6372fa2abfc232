import { toMillis } from '../clock.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { readClockMove } from './clock-move.js'
import { controlRoute, controlRouter } from './router.js'
import { ClockFreeze, ClockMove, PartnerClockState, PartnerIdParam } from './schemas.js'

const answers = (errors: (400 | 401 | 404 | 415)[]) => ({
  200: jsonResponse(PartnerClockState, "The partner's clock."),
  ...errorResponses(...errors),
})

/**
 * One partner's clock (like Stripe's test clocks): read, freeze, unfreeze, advance. Only that
 * partner's time moves, and only its due work (expiries, settlements, retries) runs.
 */
export function partnerClockRoutes({ clocks }: { clocks: PartnerClocks }) {
  const app = controlRouter()
  const path = '/partners/{id}/clock'

  app.openapi(
    controlRoute({
      method: 'get',
      path,
      operationId: 'getPartnerClock',
      summary: "Read a partner's clock",
      request: { params: PartnerIdParam },
      responses: answers([400, 401, 404]),
    }),
    async (c) => c.json(await clocks.read(c.req.valid('param').id), 200),
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: `${path}/freeze`,
      operationId: 'freezePartnerClock',
      summary: "Freeze a partner's clock (at a time, or now)",
      request: {
        params: PartnerIdParam,
        body: { required: false, content: { 'application/json': { schema: ClockFreeze } } },
      },
      responses: answers([400, 401, 404, 415]),
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const { at } = c.req.valid('json') ?? {}
      return c.json(await clocks.freeze(id, at === undefined ? undefined : toMillis(at)), 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: `${path}/unfreeze`,
      operationId: 'unfreezePartnerClock',
      summary: "Let a partner's clock run again from its current time",
      request: { params: PartnerIdParam },
      responses: answers([400, 401, 404]),
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      return c.json(await clocks.unfreeze(id), 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: `${path}/advance`,
      operationId: 'advancePartnerClock',
      summary: "Move a partner's clock forward (by a duration) or to a time",
      description:
        "Only this partner's time moves. Its expiries, settlements, reviews and webhook retries that fall due on the way run before the response; other partners are untouched.",
      request: { params: PartnerIdParam, body: jsonBody(ClockMove) },
      responses: answers([400, 401, 404, 415]),
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const move = readClockMove(c.req.valid('json'))
      const state = 'to' in move ? clocks.set(id, move.to) : clocks.advance(id, move.by)
      return c.json(await state, 200)
    },
  )

  return app
}
