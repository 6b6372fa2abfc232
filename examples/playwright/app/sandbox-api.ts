import createClient from 'openapi-fetch'
import type { paths } from 'partner-sandbox/openapi'

export interface PartnerCredentials {
  apiKey: string
  apiSecret: string
}

/**
 * The app's backend client of the card service (here: the sandbox). The org secret lives
 * only here, server-side, as the spec requires; requests and bodies are typed by the
 * sandbox's generated OpenAPI types (`partner-sandbox/openapi`).
 */
export function cardService(baseUrl: string, credentials: PartnerCredentials) {
  return createClient<paths>({
    baseUrl,
    headers: {
      'X-Partner-Key': credentials.apiKey,
      'X-Partner-Secret': credentials.apiSecret,
    },
  })
}

export type CardService = ReturnType<typeof cardService>

/** The error message of a failed call, for the page to show. */
export function messageOf(error: unknown): string {
  const envelope = error as { error?: { message?: string } } | undefined
  return envelope?.error?.message ?? 'The card service did not answer as expected.'
}
