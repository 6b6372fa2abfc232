import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseScenario } from '../src/scenarios/loader.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

describe('the README stays true', () => {
  it('its scenario example (one example per decision) is a valid scenario', () => {
    const block = /One example per decision:\s*```json\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(block).toBeDefined()
    const scenario = parseScenario(JSON.parse(block as string), 'README')
    expect(Object.keys(scenario).sort()).toEqual(
      [
        'clock',
        'deposits',
        'description',
        'disputes',
        'faults',
        'funding',
        'name',
        'onboarding',
        'otp',
        'purchases',
        'rate_limit',
        'webhooks',
      ].sort(),
    )
  })

  it('prints the default credentials the fixtures really hold', () => {
    expect(readme).toContain(DEFAULT_PARTNER.api_key)
    expect(readme).toContain(DEFAULT_PARTNER.api_secret)
  })
})
