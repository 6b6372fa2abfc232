import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ControlPlaneError,
  createControlClient,
  type RunningSandbox,
  type SandboxPartnerHandle,
  startSandbox,
} from '../src/index.js'
import { engineOptions } from './helpers.js'

/** Overrides and verification through the typed control client, over a real socket. */
const TOKEN = 'overrides-token'
const REGISTER = '/api/v1/partner/auth/register'
let sandbox: RunningSandbox
let control: ReturnType<typeof createControlClient>

beforeAll(async () => {
  sandbox = await startSandbox({
    ...engineOptions(),
    port: 0,
    logLevel: 'silent',
    adminToken: TOKEN,
  })
  control = createControlClient(sandbox.url, { adminToken: TOKEN })
})
afterAll(async () => {
  await sandbox?.close()
})

let users = 0
const register = async (partner: SandboxPartnerHandle, extra: Record<string, string> = {}) => {
  users++
  const res = await fetch(`${partner.apiBase}/partner/auth/register?source=client-test`, {
    method: 'POST',
    headers: { ...partner.headers, 'content-type': 'application/json', 'X-App': 'signup' },
    body: JSON.stringify({
      email: `client${users}@example.test`,
      password: 'Client-Passw0rd!',
      phone_number: '+14155550123',
      first_name: 'Cleo',
      last_name: 'Client',
      ssn: '123-45-6789',
      date_of_birth: '1990-01-01',
      ...extra,
    }),
  })
  // biome-ignore lint/suspicious/noExplicitAny: the test reads response fields freely
  return { status: res.status, json: (await res.json()) as any }
}

const conflict = {
  success: false as const,
  error: { code: 'conflict' as const, message: 'This email is taken.' },
  requestId: 'req_stub',
}

describe('partner.overrides', () => {
  it('create, list, answer (times), remove, and cleared by the reset', async () => {
    const partner = await control.createPartner({ name: 'Overrides client' })
    const override = await partner.overrides.create({
      match: { method: 'POST', path: REGISTER, body: { first_name: 'Taken' } },
      respond: { status: 409, body: conflict },
      times: 1,
    })
    expect(override.operation_id).toBe('registerUser')
    expect((await partner.overrides.list()).map((o) => o.id)).toEqual([override.id])
    const refused = await register(partner, { first_name: 'Taken' })
    expect(refused).toEqual({ status: 409, json: conflict })
    expect(await partner.overrides.list()).toEqual([])
    expect((await register(partner, { first_name: 'Taken' })).status).toBe(201)

    const kept = await partner.overrides.create({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 409, body: conflict },
    })
    expect((await register(partner)).status).toBe(409)
    await partner.overrides.remove(kept.id)
    expect((await register(partner)).status).toBe(201)
    await partner.overrides.create({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 409, body: conflict },
    })
    await partner.reset()
    expect(await partner.overrides.list()).toEqual([])
    await partner.delete()
  })

  it('a body off the schema is refused with the schema naming the field; off_contract serves it', async () => {
    const partner = await control.createPartner({ name: 'Contract client' })
    const refused = await partner.overrides
      .create({
        match: { method: 'POST', path: REGISTER },
        respond: { status: 201, body: { userId: 'not-a-uuid', email: 'a@example.test' } },
      })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ControlPlaneError)
    const error = refused as ControlPlaneError
    expect(error.status).toBe(400)
    expect(error.details.map((d) => d.field)).toEqual(
      expect.arrayContaining(['respond.body.userId', 'respond.body.message']),
    )
    const served = await partner.overrides.create({
      match: { method: 'POST', path: REGISTER },
      respond: { status: 201, body: { userId: 'not-a-uuid' } },
      off_contract: true,
    })
    expect(served.contract_problem).toMatch(/respond\.body\.userId/)
    expect((await register(partner)).json).toEqual({ userId: 'not-a-uuid' })
    const [entry] = await partner.requests.find({ path: REGISTER })
    expect(entry?.override).toEqual({ id: served.id, off_contract: true })
    await partner.delete()
  })

  it('global overrides through control.overrides answer every partner', async () => {
    const one = await control.createPartner({ name: 'Global one' })
    const two = await control.createPartner({ name: 'Global two' })
    const global = await control.overrides.create({
      match: { method: 'POST', path: REGISTER, headers: { 'x-app': 'signup' } },
      respond: { status: 409, body: conflict },
    })
    expect((await control.overrides.list()).map((o) => o.id)).toContain(global.id)
    expect((await register(one)).status).toBe(409)
    expect((await register(two)).status).toBe(409)
    await control.overrides.remove(global.id)
    expect((await register(two)).status).toBe(201)
    await one.delete()
    await two.delete()
  })
})

describe('requests.find by content, and requests.verify', () => {
  it('finds by query, headers and body; verify says matched, or why not', async () => {
    const partner = await control.createPartner({ name: 'Verify client' })
    await register(partner, { first_name: 'Vera' })
    const found = await partner.requests.find({
      query: { source: 'client-test' },
      headers: { 'X-App': 'signup' },
      body: { first_name: 'Vera' },
    })
    expect(found.map((e) => e.path)).toEqual([REGISTER])
    expect(
      await control.requests.count({ partner_id: partner.id, body: { first_name: 'Vera' } }),
    ).toBe(1)

    const yes = await partner.requests.verify(
      { method: 'POST', path: REGISTER, body: { first_name: 'Vera' } },
      { times: 1 },
    )
    expect(yes).toEqual({ matched: true, count: 1, near_misses: [] })
    const no = await control.requests.verify({
      partner_id: partner.id,
      method: 'POST',
      path: REGISTER,
      body: { first_name: 'Vern' },
    })
    expect(no.matched).toBe(false)
    expect(no.near_misses[0]?.differences).toEqual(['body.first_name: expected "Vern", got "Vera"'])
    await partner.delete()
  })
})
