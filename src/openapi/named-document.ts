import { namesOf, type ProductionNames, renameInDocument } from '../domain/production-names.js'
import { ApiError } from '../errors.js'
import type { StateReader } from '../state/seam.js'

/**
 * The document with the production names of the sandbox, or of one partner
 * (`/openapi.json?partner_id=…`): a client generated from it expects what that partner's
 * answers and deliveries carry. Each set of names is rendered once.
 */
export function namedDocuments<T>(
  document: () => T,
  sandbox: ProductionNames,
  reader: Pick<StateReader, 'get'>,
) {
  const rendered = new Map<string, T>()
  return async (partnerId: string | undefined): Promise<T> => {
    const partner = partnerId ? await reader.get('partners', partnerId) : undefined
    if (partnerId && !partner)
      throw new ApiError(
        'not_found',
        `No partner ${partnerId}: partner_id names the partner whose names the document uses.`,
      )
    const names = namesOf(sandbox, partner)
    const key = `${names.signatureHeader} ${names.provider}`
    let doc = rendered.get(key)
    if (!doc) {
      doc = renameInDocument(document(), names)
      if (rendered.size >= 64) rendered.clear()
      rendered.set(key, doc)
    }
    return doc
  }
}
