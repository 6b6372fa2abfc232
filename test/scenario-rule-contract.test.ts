import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER, type SandboxOptions } from '../src/index.js'
import { journalOf, setup } from './helpers.js'

/**
 * A scenario's rules are held to the API's contract as a rule added through the control
 * plane is: an answer the real service could not give is refused with the field named, at
 * every door a scenario comes in by (loaded, named for one request, or the sandbox's own),
 * unless the rule says off_contract: true, and then the journal marks the answer.
 */
const ME = '/api/v1/partner/me'
const wrongBody = {
  match: { method: 'GET', path: ME },
  respond: { status: 200, body: { partner: { id: 7 } } },
}
const undocumented = { match: { method: 'GET', path: ME }, respond: { status: 418 } }
const scenario = (rules: unknown[]) => ({ name: 'qa-contract', description: 'qa', rules })
const fields = (json: { error: { details?: { field: string }[] } }) =>
  (json.error.details ?? []).map((d) => d.field)

describe("a scenario's rules and the API's contract", () => {
  it('a loaded scenario whose answer breaks the contract is refused, naming the rule and field', async () => {
    const { call } = await setup()
    const res = await call('POST', '/_sandbox/scenarios', {
      creds: null,
      body: scenario([wrongBody]),
    })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_error')
    expect(res.json.error.message).toContain('off_contract: true')
    expect(fields(res.json).every((f) => f.startsWith('rules.0.respond.body.partner'))).toBe(true)
    expect(fields(res.json).length).toBeGreaterThan(0)
    // Nothing was loaded.
    const list = await call('GET', '/_sandbox/scenarios', { creds: null })
    expect(list.json.data.map((s: { name: string }) => s.name)).not.toContain('qa-contract')
  })

  it('with off_contract: true it loads, serves its answer and the journal says it was off', async () => {
    const { call } = await setup()
    const body = scenario([{ ...wrongBody, off_contract: true }])
    expect((await call('POST', '/_sandbox/scenarios', { creds: null, body })).status).toBe(201)
    const patch = await call('PATCH', `/_sandbox/partners/${DEFAULT_PARTNER.id}`, {
      creds: null,
      body: { scenario: 'qa-contract' },
    })
    expect(patch.status).toBe(200)
    const me = await call('GET', ME)
    expect(me.status).toBe(200)
    expect(me.json).toEqual({ partner: { id: 7 } })
    const [entry] = await journalOf(call, { path: ME })
    expect(entry.rules).toEqual([
      expect.objectContaining({ effect: 'respond', status: 200, off_contract: true }),
    ])
  })

  it('X-Sandbox-Scenario with such a rule is refused for that request, the route not run', async () => {
    const { call } = await setup()
    const res = await call('GET', ME, {
      headers: { 'x-sandbox-scenario': JSON.stringify({ rules: [undocumented] }) },
    })
    expect(res.status).toBe(400)
    expect(res.json.error.details).toEqual([
      expect.objectContaining({
        field: 'X-Sandbox-Scenario rules.0.respond.status',
        location: 'header',
      }),
    ])
    expect(res.json.error.message).toContain('does not answer 418')
    // Within the contract, the same header's rule answers.
    const ok = await call('GET', ME, {
      headers: {
        'x-sandbox-scenario': JSON.stringify({
          rules: [{ match: { method: 'GET', path: ME }, respond: { status: 503 } }],
        }),
      },
    })
    expect(ok.status).toBe(503)
  })

  it('a sandbox started with such a scenario does not start, and says which rule', async () => {
    // A document as a user's file would hold it: checked when the sandbox starts, not typed.
    const document = scenario([undocumented]) as SandboxOptions['scenario']
    await expect(setup({ scenario: document })).rejects.toThrow(
      /Scenario qa-contract: its rules break the API's contract: rules\.0\.respond\.status/,
    )
  })
})
