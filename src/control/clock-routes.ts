import { type Clock, toMillis } from '../clock.js'
import type { SandboxClockRow } from '../domain/sandbox-clock-row.js'
import { errorResponses, jsonBody, jsonResponse } from '../schemas/common.js'
import { readClockMove } from './clock-move.js'
import { controlRoute, controlRouter } from './router.js'
import { ClockFreeze, ClockMove, ClockState } from './schemas.js'

/**
 * The sandbox clock: read, freeze, unfreeze, advance. A change is answered once its row is
 * stored, so the next request through any process that shares the state reads it.
 */
export function clockRoutes({
  clock,
  clockRow,
}: {
  clock: Clock
  clockRow: Pick<SandboxClockRow, 'settled'>
}) {
  const app = controlRouter()
  const stored = async () => {
    await clockRow.settled()
    return clock.state()
  }

  app.openapi(
    controlRoute({
      method: 'get',
      path: '/clock',
      operationId: 'getSandboxClock',
      summary: 'Read the sandbox clock',
      responses: { 200: jsonResponse(ClockState, 'The clock.'), ...errorResponses(401) },
    }),
    (c) => c.json(clock.state(), 200),
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
      clock.freeze()
      if (at && toMillis(at) !== clock.now()) await clock.set(toMillis(at))
      return c.json(await stored(), 200)
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
    async (c) => {
      clock.unfreeze()
      return c.json(await stored(), 200)
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
      if ('to' in move) await clock.set(move.to)
      else await clock.advance(move.by)
      return c.json(await stored(), 200)
    },
  )

  return app
}
