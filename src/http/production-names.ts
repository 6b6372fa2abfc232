import type { MiddlewareHandler } from 'hono'
import { renameProviderFields, SPEC_PROVIDER_WORD } from '../domain/production-names.js'
import type { AppEnv } from './app-env.js'

/**
 * The API's JSON answers with the provider's word of the partner (or of the sandbox) in field
 * names: `lithic_consumer_id` where the spec writes `provider_consumer_id`. With the spec's
 * word, the answer passes untouched.
 */
export function productionFieldNames(sandboxWord: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next()
    const word = c.get('partner')?.names?.provider ?? sandboxWord
    if (word === SPEC_PROVIDER_WORD) return
    if (!c.res.headers.get('content-type')?.startsWith('application/json')) return
    const body = renameProviderFields(await c.res.json(), word)
    const headers = new Headers(c.res.headers)
    headers.delete('content-length')
    c.res = new Response(JSON.stringify(body), { status: c.res.status, headers })
  }
}
