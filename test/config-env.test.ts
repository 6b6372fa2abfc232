import { describe, expect, it } from 'vitest'
import { envNames } from '../src/config.js'
import { ConfigError, parseOptions } from '../src/index.js'

/** A container is configured by environment only: every CLI option needs a variable. */
describe('options from the environment', () => {
  it('has a variable for every option the CLI takes', () => {
    const keys = new Set(Object.values(envNames))
    for (const key of [
      'port',
      'host',
      'data',
      'fixtures',
      'scenario',
      'seed',
      'rateLimit',
      'logLevel',
      'adminToken',
      'publicUrl',
      'sessionTtl',
      'pictureLimit',
      'fsync',
    ] as const)
      expect(keys.has(key), key).toBe(true)
  })

  it('reads SANDBOX_FSYNC as a switch and refuses anything else by name', () => {
    for (const on of ['1', 'true', 'yes', 'on'])
      expect(parseOptions({ fsync: on as never }).fsync).toBe(true)
    for (const off of ['0', 'false', 'no', 'off'])
      expect(parseOptions({ fsync: off as never }).fsync).toBe(false)
    expect(() => parseOptions({ fsync: 'sometimes' as never })).toThrow(ConfigError)
    expect(() => parseOptions({ fsync: 'sometimes' as never })).toThrow(/fsync/)
  })
})
