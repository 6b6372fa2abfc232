import { parseDuration, toMillis } from '../clock.js'
import { validationError } from '../errors.js'

/**
 * The body of every clock/advance route, `{by}` or `{to}`, read as a jump to a time or a
 * move by milliseconds (kept apart so a running clock is moved by exactly `by`). A bad
 * duration is a 400 naming `by`.
 */
export function readClockMove(body: {
  by?: string | number
  to?: string
}): { to: number } | { by: number } {
  if (body.to !== undefined) return { to: toMillis(body.to) }
  try {
    return { by: parseDuration(body.by as string | number) }
  } catch (error) {
    throw validationError('by', (error as Error).message)
  }
}
