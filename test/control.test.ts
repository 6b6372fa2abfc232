import { describe, expect, it } from 'vitest'
import { acme, FIXTURE_PASSWORD, setup, testEngine } from './helpers.js'

describe('control plane /_sandbox', () => {
  it('health reports the version, storage, scenario and sandbox time', async () => {
    const { call } = await setup()
    const res = await call('GET', '/_sandbox/health', { creds: null })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({
      status: 'ok',
      // The engine this run's sandboxes use (test/helpers.ts testEngine).
      storage: testEngine === 'postgres' ? 'postgres' : 'memory',
      scenario: 'default',
      partners: 2,
    })
    expect(Date.parse(res.json.now)).not.toBeNaN()
  })

  it('creates a partner with fresh working credentials, shown once', async () => {
    const { call } = await setup()
    const res = await call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'Test Worker 3', rate_limit: 50 },
    })
    expect(res.status).toBe(201)
    const { partner, api_key, api_secret } = res.json
    expect(partner).toMatchObject({
      name: 'Test Worker 3',
      slug: 'test-worker-3',
      status: 'active',
      rate_limit: 50,
    })
    expect(api_key).toMatch(/^pk_test_/)
    expect(api_secret).toMatch(/^sk_test_/)
    const me = await call('GET', '/api/v1/partner/me', {
      creds: { key: api_key, secret: api_secret },
    })
    expect(me.status).toBe(200)
    expect(me.json.partner.id).toBe(partner.id)
    const list = await call('GET', '/_sandbox/partners', { creds: null })
    expect(list.json.data).toHaveLength(3)
    expect(list.text).not.toContain(api_secret)
    expect(list.text).not.toContain('scrypt$')
  })

  it('gives a new partner a unique slug, and refuses a taken explicit one', async () => {
    const { call } = await setup()
    const a = await call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'Acme Fintech' },
    })
    expect(a.json.partner.slug).toBe('acme-fintech-2')
    const taken = await call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'X', slug: 'acme-fintech' },
    })
    expect(taken.status).toBe(409)
  })

  it('refuses bad partner input with 400s naming the field', async () => {
    const { call } = await setup()
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: 'x', scenario: 'no-such-scenario' }, 'scenario'],
      [{ name: 'x', webhook_url: 'nope' }, 'webhook_url'],
      [{ name: 'x', rate_limit: 0 }, 'rate_limit'],
      [{ name: 'x', api_secret_hash: 'scrypt$' }, 'api_secret_hash'],
    ]
    for (const [body, field] of cases) {
      const res = await call('POST', '/_sandbox/partners', { creds: null, body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field)
    }
    expect((await call('GET', '/_sandbox/partners', { creds: null })).json.data).toHaveLength(2)
  })

  it('PATCH /_sandbox/partners/:id answers 404 for an unknown id and 400 for a bad status', async () => {
    const { call } = await setup()
    const missing = await call('PATCH', '/_sandbox/partners/00000000-0000-4000-8000-000000000000', {
      creds: null,
      body: { status: 'active' },
    })
    expect(missing.status).toBe(404)
    const notUuid = await call('PATCH', '/_sandbox/partners/abc', {
      creds: null,
      body: { status: 'active' },
    })
    expect(notUuid.status).toBe(400)
    const id = (await call('GET', '/api/v1/partner/me')).json.partner.id
    const bad = await call('PATCH', `/_sandbox/partners/${id}`, {
      creds: null,
      body: { status: 'paused' },
    })
    expect(bad.status).toBe(400)
    expect(bad.json.error.details[0].field).toBe('status')
  })

  it('reset puts the fixtures back', async () => {
    const { call } = await setup()
    await call('PATCH', '/api/v1/partner/me', { body: { display_name: 'Changed' } })
    await call('POST', '/_sandbox/partners', { creds: null, body: { name: 'Temp' } })
    const res = await call('POST', '/_sandbox/reset', { creds: null })
    expect(res.status).toBe(200)
    expect((await call('GET', '/api/v1/partner/me')).json.partner.display_name).toBe('Acme Fintech')
    expect((await call('GET', '/_sandbox/partners', { creds: null })).json.data).toHaveLength(2)
  })

  it('reset and restore empty the inbox: no code of the old state is left to read', async () => {
    const { call } = await setup()
    const email = 'jamil.kreiger@example.com'
    const inbox = async () =>
      (await call('GET', `/_sandbox/inbox?email=${email}`, { creds: null })).json.data
    const snap = (await call('GET', '/_sandbox/snapshot', { creds: null })).json
    const login = { email, password: FIXTURE_PASSWORD }
    expect((await call('POST', '/api/v1/partner/auth/login', { body: login })).status).toBe(200)
    expect(await inbox()).toHaveLength(1)
    await call('POST', '/_sandbox/reset', { creds: null })
    expect(await inbox()).toEqual([])
    await call('POST', '/api/v1/partner/auth/login', { body: login })
    expect(await inbox()).toHaveLength(1)
    await call('POST', '/_sandbox/snapshot', { creds: null, body: snap })
    expect(await inbox()).toEqual([])
  })

  it('a snapshot exported and restored brings the state back exactly', async () => {
    const { call } = await setup()
    await call('PATCH', '/api/v1/partner/me', { body: { display_name: 'Snapshotted' } })
    const snap = await call('GET', '/_sandbox/snapshot', { creds: null })
    expect(snap.status).toBe(200)
    expect(snap.json).toMatchObject({ format: 'partner-sandbox', schema_version: 1 })
    expect(snap.text).not.toContain(acme.secret)
    await call('PATCH', '/api/v1/partner/me', { body: { display_name: 'Later' } })
    const restored = await call('POST', '/_sandbox/snapshot', { creds: null, body: snap.json })
    expect(restored.status).toBe(200)
    expect((await call('GET', '/api/v1/partner/me')).json.partner.display_name).toBe('Snapshotted')
  })

  it('an invalid snapshot is refused with the bad paths and nothing changes', async () => {
    const { call } = await setup()
    const snap = (await call('GET', '/_sandbox/snapshot', { creds: null })).json
    const [id, row] = Object.entries(snap.collections.partners)[0] as [
      string,
      Record<string, unknown>,
    ]
    snap.collections.partners[id] = { ...row, status: 'sleeping' }
    snap.collections.widgets = {}
    const res = await call('POST', '/_sandbox/snapshot', { creds: null, body: snap })
    expect(res.status).toBe(400)
    const fields = res.json.error.details.map((d: { field: string }) => d.field)
    expect(fields).toContain(`collections.partners.${id}.status`)
    expect(fields).toContain('collections.widgets')
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(200)
    const wrongVersion = await call('POST', '/_sandbox/snapshot', {
      creds: null,
      body: { ...snap, schema_version: 99 },
    })
    expect(wrongVersion.status).toBe(400)
  })

  it('the admin token guards the control plane when set, and only it', async () => {
    const { call } = await setup({ adminToken: 'let-me-in' })
    // (The health check stays open: test/control-exposure.test.ts.)
    expect((await call('GET', '/_sandbox/clock', { creds: null })).status).toBe(401)
    expect(
      (
        await call('GET', '/_sandbox/clock', {
          creds: null,
          headers: { authorization: 'Bearer nope' },
        })
      ).status,
    ).toBe(401)
    expect(
      (
        await call('GET', '/_sandbox/clock', {
          creds: null,
          headers: { authorization: 'Bearer let-me-in' },
        })
      ).status,
    ).toBe(200)
    expect(
      (
        await call('GET', '/_sandbox/clock', {
          creds: null,
          headers: { 'x-sandbox-admin-token': 'let-me-in' },
        })
      ).status,
    ).toBe(200)
    expect((await call('GET', '/api/v1/partner/me')).status).toBe(200)
  })

  it('a value no form of a union takes is refused with the forms it could have been', async () => {
    const { call } = await setup()
    const rule = await call('POST', '/_sandbox/rules', {
      creds: null,
      body: { match: { path: '/api/v1/*' }, decide: { kyc: 'maybe' } },
    })
    expect(rule.status, rule.text).toBe(400)
    expect(rule.json.error.details).toEqual([
      {
        field: 'decide.kyc',
        message: 'must be one of "pass", "kyc_fail", "underwriting_decline", "manual_review"',
        location: 'body',
      },
    ])
    expect(rule.json.error.message).toContain(
      'decide.kyc must be one of "pass", "kyc_fail", "underwriting_decline", "manual_review"',
    )
    expect((await call('GET', '/_sandbox/rules', { creds: null })).json.data).toEqual([])
    const latency = await call('POST', '/_sandbox/rules', {
      creds: null,
      body: { match: { path: '/api/v1/*' }, latency_ms: 'slow' },
    })
    expect(latency.json.error.details[0]).toMatchObject({
      field: 'latency_ms',
      message: 'must be a number or an array (got "slow")',
    })
    const clock = await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by: true } })
    expect(clock.status).toBe(400)
    expect(clock.json.error.details[0]).toMatchObject({
      field: 'by',
      message: 'must be a string or a number (got true)',
    })
  })

  it('the clock can be read, frozen, advanced and unfrozen', async () => {
    const { call } = await setup()
    const frozen = await call('POST', '/_sandbox/clock/freeze', {
      creds: null,
      body: { at: '2026-05-01T12:00:00Z' },
    })
    expect(frozen.json).toMatchObject({ now: '2026-05-01T12:00:00.000Z', frozen: true })
    const advanced = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '1h30m' },
    })
    expect(advanced.json.now).toBe('2026-05-01T13:30:00.000Z')
    const jumped = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { to: '2026-06-01T00:00:00Z' },
    })
    expect(jumped.json.now).toBe('2026-06-01T00:00:00.000Z')
    const bad = await call('POST', '/_sandbox/clock/advance', { creds: null, body: { by: 'soon' } })
    expect(bad.status).toBe(400)
    expect(bad.json.error.details[0].field).toBe('by')
    const both = await call('POST', '/_sandbox/clock/advance', {
      creds: null,
      body: { by: '1m', to: '2026-06-01T00:00:00Z' },
    })
    expect(both.status).toBe(400)
    expect((await call('GET', '/_sandbox/clock', { creds: null })).json.now).toBe(
      '2026-06-01T00:00:00.000Z',
    )
    const running = await call('POST', '/_sandbox/clock/unfreeze', { creds: null })
    expect(running.json.frozen).toBe(false)
    // The partner record's timestamps follow the sandbox clock.
    await call('POST', '/_sandbox/clock/freeze', {
      creds: null,
      body: { at: '2030-01-01T00:00:00Z' },
    })
    const patched = await call('PATCH', '/api/v1/partner/me', {
      body: { contact_name: 'Later Person' },
    })
    expect(patched.json.partner.updated_at).toBe('2030-01-01T00:00:00.000Z')
  })
})
