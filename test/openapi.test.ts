import { describe, expect, it } from 'vitest'
import { testSandbox } from './helpers.js'

describe('OpenAPI document and docs page', () => {
  it('serves an OpenAPI 3.1 document with every route and its error responses', async () => {
    const { call } = await testSandbox()
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
      '413',
      '415',
      '429',
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

  it('serves a docs page listing the operations with no external asset', async () => {
    const { call } = await testSandbox()
    const res = await call('GET', '/docs', { creds: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(res.text).toContain('/api/v1/partner/me/rotate-api-key')
    expect(res.text).toContain('data-testid="operation"')
    expect(res.text).not.toMatch(/<script|<link[^>]+href="https?:|src="https?:/)
  })
})
