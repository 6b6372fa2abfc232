import { toMillis } from '../clock.js'
import type { Deps } from '../deps.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { readClockMove } from './clock-move.js'
import { controlRoute, controlRouter } from './router.js'
import { ClockFreeze, ClockMove, ClockState } from './schemas.js'

/** The sandbox clock: read, freeze, unfreeze, advance. */
export function clockRoutes(deps: Deps) {
  const app = controlRouter()

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/clock',
      operationId: 'getSandboxClock',
      summary: 'Read the sandbox clock',
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(401) },
    }),
    (c) => c.json(deps.clock.state(), 200),
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/clock/freeze',
      operationId: 'freezeSandboxClock',
      summary: 'Freeze the clock (at a time, or now)',
      request: {
        body: { required: false, content: { 'application/json': { schema: ClockFreeze } } },
      },
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const { at } = c.req.valid('json')
      // Freeze first: with the clock running, a set() then freeze() would drift by the
      // milliseconds in between.
      deps.clock.freeze()
      if (at && toMillis(at) !== deps.clock.now()) await deps.clock.set(toMillis(at))
      return c.json(deps.clock.state(), 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/clock/unfreeze',
      operationId: 'unfreezeSandboxClock',
      summary: 'Let the clock run again from its current time',
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(401) },
    }),
    (c) => {
      deps.clock.unfreeze()
      return c.json(deps.clock.state(), 200)
    },
  )

  app.openapi(
    controlRoute({
      method: 'post',
      path: '/clock/advance',
      operationId: 'advanceSandboxClock',
      summary: 'Move the clock forward (by a duration) or to a time',
      description:
        'Everything that falls due on the way (expiries, settlements, retries) runs before the response.',
      request: { body: jsonBody(ClockMove) },
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const move = readClockMove(c.req.valid('json'))
      if ('to' in move) await deps.clock.set(move.to)
      else await deps.clock.advance(move.by)
      return c.json(deps.clock.state(), 200)
    },
  )

  return app
}
