import { describe, expect, it } from 'vitest'
import { setup } from './helpers.js'

describe('OpenAPI document and docs page', () => {
  it('serves an OpenAPI 3.1 document with every route and its error responses', async () => {
    const { call } = await setup()
    const res = await call('GET', '/openapi.json', { creds: null })
    expect(res.status).toBe(200)
    const doc = res.json
    expect(doc.openapi).toBe('3.1.0')
    const me = doc.paths['/api/v1/partner/me']
    expect(Object.keys(me.patch.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '429',
      '500',
      '502',
      '503',
      '504',
      '507',
    ])
    expect(me.get.security).toEqual([{ PartnerKey: [], PartnerSecret: [] }])
    expect(doc.components.schemas.Error.properties).toHaveProperty('requestId')
    expect(doc.components.securitySchemes.PartnerKey).toMatchObject({
      in: 'header',
      name: 'X-Partner-Key',
    })
    for (const path of [
      '/api/v1/partner/me/rotate-api-key',
      '/api/v1/partner/usage',
      '/_sandbox/partners',
      '/_sandbox/snapshot',
    ]) {
      expect(doc.paths, path).toHaveProperty([path])
    }
    const patch = doc.components.schemas.PatchPartner
    expect(patch.additionalProperties).toBe(false)
    expect(Object.keys(patch.properties)).not.toContain('api_key')
  })

  it('serves the reference page and its renderer from this server, none from elsewhere', async () => {
    const { call } = await setup()
    const res = await call('GET', '/docs', { creds: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(res.text).not.toMatch(/<link[^>]+href="https?:|src="https?:/)
    const srcs = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string)
    expect(srcs).toContain('/docs/assets/swagger-ui-bundle.js')
    for (const src of srcs) {
      const asset = await call('GET', src, { creds: null })
      expect(asset.status, src).toBe(200)
      expect(asset.text.length, src).toBeGreaterThan(100)
    }
    expect((await call('GET', '/docs/assets/../../package.json', { creds: null })).status).toBe(404)
  })
})
