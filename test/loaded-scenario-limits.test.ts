import { describe, expect, it } from 'vitest'
import { LOADED_SCENARIOS_CAP } from '../src/scenarios/loaded-scenarios.js'
import {
  type Call,
  createPartner,
  hostedOnboarding,
  onboardingApplicant,
  registerAndLogin,
  setup,
} from './helpers.js'

// Loaded scenarios are read by every control-plane request and sweep, so a sandbox keeps a
// bounded number of them, and one that is done with can be deleted.

async function load(call: Call, doc: Record<string, unknown>) {
  return call('POST', '/_sandbox/scenarios', { creds: null, body: doc })
}

const names = async (call: Call) =>
  (await call('GET', '/_sandbox/scenarios', { creds: null })).json.data.map(
    (s: { name: string }) => s.name,
  )

describe('DELETE /_sandbox/scenarios/{name}', () => {
  it('deletes a loaded scenario no partner names; refuses one a partner names', async () => {
    const { call } = await setup()
    const doc = { name: 'qa', description: 'KYC fails.', onboarding: { default: 'kyc_fail' } }
    expect((await load(call, doc)).status).toBe(201)
    const p = await createPartner(call, { name: 'QA', scenario: 'qa' })

    const refused = await call('DELETE', '/_sandbox/scenarios/qa', { creds: null })
    expect(refused.status, refused.text).toBe(409)
    expect(refused.json.error.code).toBe('conflict')
    expect(refused.json.error.message).toContain(p.id)
    expect(await names(call)).toContain('qa')

    // Nor while it is the sandbox's scenario.
    await call('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'qa' } })
    const wide = await call('DELETE', '/_sandbox/scenarios/qa', { creds: null })
    expect(wide.status, wide.text).toBe(409)
    expect(wide.json.error.message).toContain('PUT /_sandbox/scenario')
    await call('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'default' } })

    const moved = await call('PATCH', `/_sandbox/partners/${p.id}`, {
      creds: null,
      body: { scenario: 'happy-path' },
    })
    expect(moved.status, moved.text).toBe(200)
    const deleted = await call('DELETE', '/_sandbox/scenarios/qa', { creds: null })
    expect(deleted.status, deleted.text).toBe(200)
    expect(deleted.json).toMatchObject({ ok: true })
    expect(await names(call)).not.toContain('qa')
    // Gone by name: neither a partner nor the sandbox can be given it.
    const use = await call('PUT', '/_sandbox/scenario', { creds: null, body: { name: 'qa' } })
    expect(use.status, use.text).toBe(400)
    const give = await call('PATCH', `/_sandbox/partners/${p.id}`, {
      creds: null,
      body: { scenario: 'qa' },
    })
    expect(give.status, give.text).toBe(400)

    const again = await call('DELETE', '/_sandbox/scenarios/qa', { creds: null })
    expect(again.status).toBe(404)
    expect(again.json.error.code).toBe('not_found')
    const bundled = await call('DELETE', '/_sandbox/scenarios/kyc-fail', { creds: null })
    expect(bundled.status).toBe(404)
    expect(await names(call)).toContain('kyc-fail')
  })

  it('gives back the bundled scenario a deleted one had shadowed', async () => {
    const { call } = await setup()
    const shadow = {
      name: 'kyc-fail',
      description: 'Passes after all.',
      onboarding: { default: 'pass' },
    }
    expect((await load(call, shadow)).status).toBe(201)
    const p = await createPartner(call, { name: 'Shadowed', scenario: 'kyc-fail' })
    const onboard = async () => {
      const u = await registerAndLogin(call, {}, p.creds)
      const applicant = { ...onboardingApplicant(u.user), ssn: '123456789' }
      return (await hostedOnboarding(call, u.bearer, applicant, p.creds)).completion.status
    }
    expect(await onboard()).toBe('completed')
    await call('PATCH', `/_sandbox/partners/${p.id}`, { creds: null, body: { scenario: null } })
    const deleted = await call('DELETE', '/_sandbox/scenarios/kyc-fail', { creds: null })
    expect(deleted.status, deleted.text).toBe(200)
    await call('PATCH', `/_sandbox/partners/${p.id}`, {
      creds: null,
      body: { scenario: 'kyc-fail' },
    })
    expect(await onboard()).toBe('failed')
  })
})

describe('a scenario deleted through another process', () => {
  it('cannot be given to a partner, even by a process that had it in force', async () => {
    const t = await setup()
    expect((await load(t.call, { name: 'qa', description: 'Soon gone.' })).status).toBe(201)
    const p = await createPartner(t.call, { name: 'QA' })
    // Deleted as another replica's DELETE would: the row goes, this process is not told.
    const { state, platform } = t.sandbox.services
    await state.transaction(async (tx) => tx.remove('scenarios', 'qa'))
    await expect(platform.updatePartner(p.id, { scenario: 'qa' })).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ field: 'scenario' })],
    })
    expect((await state.get('partners', p.id))?.scenario).toBeNull()
    // Refused as a whole: a status in the same patch is not set either.
    await expect(
      platform.updatePartner(p.id, { status: 'suspended', scenario: 'qa' }),
    ).rejects.toMatchObject({ status: 400 })
    expect((await state.get('partners', p.id))?.status).toBe('active')
    // Nor can it become the sandbox's scenario.
    const { scenarios, sandboxScenario } = t.sandbox.services
    await expect(sandboxScenario.choose(scenarios.resolve('qa'))).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ field: 'name' })],
    })
    expect(scenarios.default.name).toBe('default')
    await expect(
      t.sandbox.services.partners.create({ name: 'Late', scenario: 'qa' }),
    ).rejects.toMatchObject({ status: 400 })
  })
})

describe('the loaded scenarios a sandbox keeps', () => {
  it(`are at most ${LOADED_SCENARIOS_CAP}: a new name past them is refused, a loaded one replaced`, async () => {
    const { call } = await setup()
    for (let i = 0; i < LOADED_SCENARIOS_CAP; i++) {
      const res = await load(call, { name: `run-${i}`, description: `Run ${i}.` })
      expect(res.status, res.text).toBe(201)
    }
    const refused = await load(call, { name: 'one-more', description: 'Past the cap.' })
    expect(refused.status, refused.text).toBe(409)
    expect(refused.json.error.code).toBe('conflict')
    expect(refused.json.error.message).toContain('DELETE /_sandbox/scenarios/{name}')
    expect(await names(call)).not.toContain('one-more')

    // A loaded name is replaced, not added.
    const replaced = await load(call, { name: 'run-7', description: 'Run 7, again.' })
    expect(replaced.status, replaced.text).toBe(201)
    expect((await call('DELETE', '/_sandbox/scenarios/run-0', { creds: null })).status).toBe(200)
    expect((await load(call, { name: 'one-more', description: 'Room now.' })).status).toBe(201)
    expect(await names(call)).toContain('one-more')
  })
})
