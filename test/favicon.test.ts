import { describe, expect, it } from 'vitest'
import { setup } from './helpers.js'

/** The sandbox serves its own icon, so no hosted page or /docs logs a 404 for it. */
describe('favicon', () => {
  it('is served at /favicon.svg and /favicon.ico as SVG, cacheable, with no credentials', async () => {
    const { call } = await setup()
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const res = await call('GET', path, { creds: null })
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toBe('image/svg+xml')
      expect(res.headers.get('cache-control')).toContain('max-age')
      expect(res.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    }
  })

  it('every HTML page links it: docs, the hosted error page', async () => {
    const { call } = await setup()
    const docs = await call('GET', '/docs', { creds: null })
    expect(docs.text).toContain('<link rel="icon" href="/favicon.svg"')
    const error = await call('GET', '/api/v1/external-bank-account-connect/connect?token=x', {
      creds: null,
    })
    expect(error.status).toBe(404)
    expect(error.text).toContain('<link rel="icon" href="/favicon.svg"')
    expect(error.headers.get('content-security-policy')).toContain("img-src 'self'")
  })
})
