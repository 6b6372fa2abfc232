import { parseDuration, toMillis } from '../clock.js'
import { validationError } from '../errors.js'

/**
 * Where a clock move (`{by}` or `{to}`, the body of every clock/advance route) lands, from
 * the clock's current time. A bad duration is a 400 naming `by`.
 */
export function moveTarget(body: { by?: string | number; to?: string }, now: number): number {
  if (body.to !== undefined) return toMillis(body.to)
  try {
    return now + parseDuration(body.by as string | number)
  } catch (error) {
    throw validationError('by', (error as Error).message)
  }
}
