import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listBundledScenarios, loadScenario } from '../src/scenarios/loader.js'
import { setup, tempDirForTest } from './helpers.js'

const tempFile = (name: string, content: string) => {
  const file = join(tempDirForTest('scn-'), name)
  writeFileSync(file, content)
  return file
}

describe('scenario skeleton', () => {
  it('loads the bundled default and lists it', () => {
    expect(loadScenario('default').name).toBe('default')
    expect(listBundledScenarios().map((s) => s.name)).toContain('default')
  })

  it('refuses a bad scenario file with the path of the bad value', () => {
    const file = tempFile(
      'bad.json',
      JSON.stringify({ name: 'x', description: 'd', rate_limit: { per_minute: -1 } }),
    )
    expect(() => loadScenario(file)).toThrow(/rate_limit\.per_minute/)
    const unknown = tempFile(
      'unknown.json',
      JSON.stringify({ name: 'x', description: 'd', otp_codez: {} }),
    )
    expect(() => loadScenario(unknown)).toThrow(/otp_codez/)
    expect(() => loadScenario(tempFile('broken.json', '{'))).toThrow(/not valid JSON/)
    expect(() => loadScenario('no-such-one')).toThrow(/bundled scenarios: .*default/)
  })

  it('applies a scenario file given by path: its clock start, frozen', async () => {
    const file = tempFile(
      'frozen.json',
      JSON.stringify({
        name: 'frozen',
        description: 'frozen time',
        clock: { start: '2027-02-03T04:05:06Z', frozen: true },
      }),
    )
    const { sandbox } = await setup({ scenario: file })
    expect(sandbox.clock.iso()).toBe('2027-02-03T04:05:06.000Z')
    const health = (await (await sandbox.app.request('/_sandbox/health')).json()) as {
      scenario: string
    }
    expect(health.scenario).toBe('frozen')
  })

  it('a partner created with a scenario runs under it; others keep the default', async () => {
    const { call } = await setup()
    const created = await call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'W1', scenario: 'default' },
    })
    expect(created.status).toBe(201)
    expect(created.json.scenario).toBe('default')
    const switched = await call('PATCH', `/_sandbox/partners/${created.json.partner.id}`, {
      creds: null,
      body: { scenario: null },
    })
    expect(switched.json.scenario).toBeNull()
  })

  it('a scenario needs only a name: description is optional, listed as null', async () => {
    const { call } = await setup()
    const loaded = await call('POST', '/_sandbox/scenarios', {
      creds: null,
      body: { name: 'no-words', otp: { code: '424242' } },
    })
    expect(loaded.status, loaded.text).toBe(201)
    expect(loaded.json.scenario).toEqual({ name: 'no-words', description: null, bundled: false })
    const listed = await call('GET', '/_sandbox/scenarios', { creds: null })
    expect(listed.json.data).toContainEqual({ name: 'no-words', description: null, bundled: false })
    const nameless = await call('POST', '/_sandbox/scenarios', {
      creds: null,
      body: { description: 'no name' },
    })
    expect(nameless.status).toBe(400)
    expect(nameless.json.error.details[0].field).toBe('name')
  })
})
