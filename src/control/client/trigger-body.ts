import type { TriggerOptions } from './types.js'

/** The body of POST /_sandbox/events. */
export const triggerBody = (
  partnerId: string,
  type: string,
  object: Record<string, unknown> | undefined,
  options: TriggerOptions,
) => ({
  partner_id: partnerId,
  type,
  ...(object ? { object } : {}),
  ...(options.overrides ? { overrides: options.overrides } : {}),
})
