import { ApiError } from '../errors.js'
import type { StateReader } from '../state/seam.js'

/**
 * Refuses a new endpoint once the partner has `limit` of them (the primary one, which mirrors
 * `webhook_url`, included): every event fans out to every endpoint, so without a cap one
 * partner could make each event cost hundreds of deliveries. Read in the transaction that
 * writes the endpoint, so two creations at once cannot both take the last place.
 */
export async function assertEndpointRoom(
  reader: Pick<StateReader, 'lookup'>,
  partnerId: string,
  limit: number,
  field?: string,
): Promise<void> {
  const count = (await reader.lookup('webhooks_by_partner', partnerId)).length
  if (count < limit) return
  throw new ApiError(
    'conflict',
    `This partner has ${count} webhook endpoints, the most it may have (the sandbox's --webhook-limit is ${limit}); delete one with DELETE /api/v1/partner/webhooks/{id} first.`,
    field
      ? {
          details: [
            {
              field,
              message: `would be endpoint ${count + 1} of at most ${limit}`,
              location: 'body',
            },
          ],
        }
      : {},
  )
}
