import { describe, expect, it } from 'vitest'
import { acme, orgHeaders, setup } from './helpers.js'

describe('the error envelope on every failure', () => {
  it('malformed JSON is a 400 that says so', async () => {
    const { call } = await setup()
    const res = await call('PATCH', '/api/v1/partner/me', {
      raw: '{"display_name": ',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ success: false, error: { code: 'validation_error' } })
    expect(res.json.error.message).toMatch(/not valid JSON/)
  })

  it('a body that is not JSON is a 415', async () => {
    const { call } = await setup()
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await call('PATCH', '/api/v1/partner/me', {
        raw: 'display_name=x',
        headers: { 'content-type': type },
      })
      expect(res.status).toBe(415)
      expect(res.json.error.code).toBe('unsupported_media_type')
    }
    const none = await call('PATCH', '/api/v1/partner/me', { raw: '{"display_name":"x"}' })
    expect(none.status).toBe(415)
  })

  it('an unknown route is a 404 in the envelope', async () => {
    const { call } = await setup()
    const res = await call('GET', '/api/v1/partner/nope')
    expect(res.status).toBe(404)
    expect(res.json.error).toMatchObject({ code: 'not_found' })
    expect(res.json.error.message).toContain('GET /api/v1/partner/nope')
    expect((await call('GET', '/nothing-here', { creds: null })).status).toBe(404)
  })

  it('an oversized body is a 413 and changes nothing', async () => {
    const { call } = await setup({ bodyLimit: 1024 })
    const res = await call('PATCH', '/api/v1/partner/me', {
      body: { display_name: 'x', config: { blob: 'a'.repeat(4096) } },
    })
    expect(res.status).toBe(413)
    expect(res.json.error.code).toBe('payload_too_large')
    expect((await call('GET', '/api/v1/partner/me')).json.partner.display_name).toBe('Acme Fintech')
  })

  it('a thrown bug is a 500 with the request id and no stack', async () => {
    const { sandbox, call } = await setup()
    const fail = () => {
      throw new Error('disk on fire at /secret/path.ts:42')
    }
    // Every write goes through the state seam's transaction, whatever the engine.
    sandbox.services.state.transaction = fail
    const res = await call('PATCH', '/api/v1/partner/me', { body: { display_name: 'Boom' } })
    expect(res.status).toBe(500)
    expect(res.json.error.code).toBe('internal_error')
    expect(res.json.requestId).toMatch(/^req_/)
    expect(res.json.error.message).toContain(res.json.requestId)
    expect(res.text).not.toMatch(/disk on fire|secret\/path|at .*\.ts/)
  })

  it('honours a client X-Request-Id and echoes it', async () => {
    const { sandbox } = await setup()
    const res = await sandbox.app.request('/api/v1/partner/me', {
      headers: {
        ...orgHeaders({ key: acme.key, secret: 'sk_test_wrong' }),
        'x-request-id': 'trace-123',
      },
    })
    expect(res.headers.get('x-request-id')).toBe('trace-123')
    expect(((await res.json()) as { requestId: string }).requestId).toBe('trace-123')
  })
})
