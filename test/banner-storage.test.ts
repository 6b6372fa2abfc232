/**
 * The banner's Storage line says where the state lives: memory, the data file, or the
 * PostgreSQL database and schema, never with the database's password (a banner is pasted
 * into chats and CI logs).
 */
import { describe, expect, it } from 'vitest'
import { banner } from '../src/banner.js'
import { parseOptions } from '../src/index.js'
import { maskDatabaseUrl } from '../src/state/database-url.js'

const storageLine = (options: Parameters<typeof parseOptions>[0]) => {
  const text = banner({
    version: '0.0.0',
    readyMs: 12,
    url: 'http://127.0.0.1:4010',
    config: parseOptions(options),
    scenario: 'default',
  })
  return { text, line: /^ {2}Storage {3}(.*)$/m.exec(text)?.[1] }
}

describe('the banner on PostgreSQL', () => {
  it('names the database with the password masked, and the default schema', () => {
    const { text, line } = storageLine({
      database: 'postgres://sandbox:hunter2-secret@db:5432/sandbox',
    })
    expect(line).toBe('PostgreSQL postgres://sandbox:****@db:5432/sandbox (schema partner_sandbox)')
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain('memory')
  })

  it('names the schema of ?schema= (not as a query), and shows a URL without password as is', () => {
    const { line } = storageLine({ database: 'postgresql://sandbox@127.0.0.1/sandbox?schema=qa' })
    expect(line).toBe('PostgreSQL postgresql://sandbox@127.0.0.1/sandbox (schema qa)')
    const pooled = storageLine({ database: 'postgres://sandbox@db/sandbox?pool=4&schema=qa' })
    expect(pooled.line).toBe('PostgreSQL postgres://sandbox@db/sandbox (schema qa)')
  })

  it('masks a password with escaped characters whole', () => {
    const { text, line } = storageLine({ database: 'postgres://app:p%40ss%2Fw0rd@db/app' })
    expect(line).toBe('PostgreSQL postgres://app:****@db/app (schema partner_sandbox)')
    expect(text).not.toMatch(/p%40ss|p@ss|w0rd/)
  })

  it('still says memory, or the data file, without a database', () => {
    expect(storageLine({}).line).toBe('memory (use --data FILE to keep state)')
    expect(storageLine({ data: '/tmp/state.json' }).line).toBe('/tmp/state.json')
  })
})

describe('maskDatabaseUrl', () => {
  it('hides the password of a URL that does not parse, up to its last @', () => {
    expect(maskDatabaseUrl('postgres://u:pa@ss@db:99999/x')).toBe('postgres://u:****@db:99999/x')
    expect(maskDatabaseUrl('postgres://u@db:99999/x')).toBe('postgres://u@db:99999/x')
  })
})
