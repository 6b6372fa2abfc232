import { describe, expect, it, vi } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { httpCall, servedForTest } from './helpers.js'

/**
 * `defaultCredentials()` of the programmatic API answers the bundled partner's key and secret
 * while the state holds that partner, and nothing once it is gone: at once on the memory
 * engine, within a second on PostgreSQL (where any replica may have removed it).
 */
describe('defaultCredentials()', () => {
  it('answers the bundled pair, then nothing once the default partner is deleted', async () => {
    const sandbox = await servedForTest()
    expect(sandbox.defaultCredentials()).toEqual({
      apiKey: DEFAULT_PARTNER.api_key,
      apiSecret: DEFAULT_PARTNER.api_secret,
    })
    const call = httpCall(sandbox.url)
    const me = await call('GET', '/api/v1/partner/me')
    expect(me.status, me.text).toBe(200)
    const id = (me.json as { partner: { id: string } }).partner.id
    const deleted = await call('DELETE', `/_sandbox/partners/${id}`, { creds: null })
    expect(deleted.status, deleted.text).toBe(200)
    await vi.waitFor(() => expect(sandbox.defaultCredentials()).toBeUndefined(), {
      timeout: 5_000,
      interval: 50,
    })
    // A reset brings the fixtures back, the default partner with them.
    const reset = await call('POST', '/_sandbox/reset', { creds: null })
    expect(reset.status, reset.text).toBe(200)
    await vi.waitFor(() => expect(sandbox.defaultCredentials()).toBeDefined(), { timeout: 5_000 })
  })
})
