import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { REDACTED } from '../src/domain/snapshot-secrets.js'
import { bearer, type Call, registerAndLogin, setup, storedRow, tempDirForTest } from './helpers.js'

/**
 * Secrets at rest: the data file and its journal (pictures are rows) are the owner's only,
 * the snapshot export leaves key material out unless asked, a redacted restore keeps the
 * current keys, and a rotated-out webhook secret leaves the data file at the next compaction.
 */

let dir: string
let file: string
beforeEach(() => {
  dir = tempDirForTest('partner-sandbox-secrets-')
  file = join(dir, 'sandbox.json')
})

const mode = (path: string) => statSync(path).mode & 0o777

async function createEndpoint(call: Call) {
  const res = await call('POST', '/api/v1/partner/webhooks', {
    body: { url: 'http://127.0.0.1:9/hooks', events: [] },
  })
  expect(res.status, res.text).toBe(201)
  return { id: res.json.webhook.id as string, secret: res.json.secret as string }
}

describe('file modes', () => {
  it('the data file and its journal (pictures included) are readable by the owner only', async () => {
    const t = await setup({ data: file })
    await createEndpoint(t.call)
    expect(mode(file)).toBe(0o600)
    expect(mode(`${file}.journal`)).toBe(0o600)
    // A compaction writes a new snapshot (temp file + rename): still owner only.
    await t.sandbox.store.compact()
    expect(mode(file)).toBe(0o600)
    expect(mode(`${file}.journal`)).toBe(0o600)
  })
})

describe('GET /_sandbox/snapshot', () => {
  it('redacts the signing key, webhook secrets and code hashes unless include_secrets=true', async () => {
    const { call } = await setup()
    const endpoint = await createEndpoint(call)
    await registerAndLogin(call)
    const redacted = (await call('GET', '/_sandbox/snapshot', { creds: null })).json.collections
    expect(redacted.meta.sandbox.session_signing_key).toBe(REDACTED)
    expect(redacted.webhooks[endpoint.id].secret).toBe(REDACTED)
    const codes = Object.values(redacted.verification_codes) as { code_hash: string }[]
    expect(codes.length).toBeGreaterThan(0)
    for (const code of codes) expect(code.code_hash).toBe(REDACTED)
    // Password hashes (scrypt) stay: a restore needs them to keep logins working.
    const users = Object.values(redacted.users) as { password_hash: string }[]
    expect(users[0]?.password_hash).toMatch(/^scrypt\$/)

    const full = await call('GET', '/_sandbox/snapshot?include_secrets=true', { creds: null })
    expect(full.status).toBe(200)
    const collections = full.json.collections
    expect(collections.webhooks[endpoint.id].secret).toBe(endpoint.secret)
    expect(collections.meta.sandbox.session_signing_key).not.toBe(REDACTED)
    for (const code of Object.values(collections.verification_codes) as { code_hash: string }[])
      expect(code.code_hash).not.toBe(REDACTED)

    const bad = await call('GET', '/_sandbox/snapshot?include_secrets=yes', { creds: null })
    expect(bad.status).toBe(400)
    expect(bad.json.error.details[0].field).toBe('include_secrets')
  })

  it('restoring a redacted export keeps the current key, secrets and codes', async () => {
    const { call } = await setup()
    const endpoint = await createEndpoint(call)
    const { token, user } = await registerAndLogin(call)
    // A code issued before the export, still unused.
    await call('POST', '/api/v1/partner/auth/login', {
      body: { email: user.email, password: user.password },
    })
    const inbox = await call('GET', `/_sandbox/inbox?email=${encodeURIComponent(user.email)}`, {
      creds: null,
    })
    const code = inbox.json.data[0].code
    const exported = await call('GET', '/_sandbox/snapshot', { creds: null })
    const restored = await call('POST', '/_sandbox/snapshot', { creds: null, body: exported.json })
    expect(restored.status, restored.text).toBe(200)

    expect((await storedRow(call, 'webhooks', endpoint.id))?.secret).toBe(endpoint.secret)
    const me = await call('GET', '/api/v1/partner/users/me', { headers: bearer(token) })
    expect(me.status, me.text).toBe(200)
    const verified = await call('POST', '/api/v1/partner/auth/verify-otp', {
      body: { email: user.email, code },
    })
    expect(verified.status, verified.text).toBe(200)
  })

  it('documents include_secrets in the OpenAPI document', async () => {
    const { call } = await setup()
    const doc = (await call('GET', '/openapi.json', { creds: null })).json
    const op = doc.paths['/_sandbox/snapshot'].get
    expect(op.parameters.map((p: { name: string }) => p.name)).toContain('include_secrets')
    expect(op.description).toContain('redacted')
  })
})

describe('rotated webhook secrets', () => {
  it('leave the data file at the next compaction', async () => {
    const t = await setup({ data: file })
    const endpoint = await createEndpoint(t.call)
    const rotated = await t.call('POST', `/api/v1/partner/webhooks/${endpoint.id}/rotate-secret`)
    expect(rotated.status, rotated.text).toBe(200)
    const onDisk = () =>
      ['', '.journal', '.journal.compacting']
        .map((suffix) => `${file}${suffix}`)
        .filter(existsSync)
        .map((path) => readFileSync(path, 'utf8'))
        .join('\n')
    // Before: the journal still holds the endpoint's creation with its first secret.
    expect(onDisk()).toContain(endpoint.secret)
    await t.sandbox.store.compact()
    expect(onDisk()).not.toContain(endpoint.secret)
    expect(onDisk()).toContain(rotated.json.secret)
  })
})
