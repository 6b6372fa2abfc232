import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import type { UserRow } from '../src/store/records.js'
import { type Call, setup, type TestSandbox, tempDirForTest, testEngine } from './helpers.js'

// Reset keeps no second copy of the fixtures' rows: the store starts from the fixture rows
// themselves (frozen), and a write replaces a row instead of changing it. These tests change
// fixture rows every way the store allows and check a reset brings back exactly the fixtures,
// including a password the fixtures gave in plain text (hashed once, at load, with a salt).

let dir: string
let fixtures: string
const defaults = JSON.parse(readFileSync(join('fixtures', 'default.json'), 'utf8'))
const plainUserId = '0b6f5a0e-8a51-4c6e-9f0e-1f2d3c4b5a69'

beforeEach(() => {
  dir = tempDirForTest('partner-sandbox-fixture-reset-')
  fixtures = join(dir, 'fixtures.json')
  const [first] = defaults.users
  const plain = {
    ...first,
    id: plainUserId,
    email: 'plain@example.com',
    password: 'Plain-Passw0rd!',
  }
  delete plain.password_hash
  writeFileSync(
    fixtures,
    JSON.stringify({ partners: defaults.partners, users: [...defaults.users, plain] }),
  )
})

type Sandbox = TestSandbox['sandbox']
const rowsOf = async (sandbox: Sandbox) =>
  structuredClone((await sandbox.services.state.export()).collections)

/** Changes, removes and adds rows of every kind a partner's writes make. */
async function scribble(sandbox: Sandbox, call: Call) {
  const [first, second] = await sandbox.services.state.all('users')
  const patched = await call('PATCH', '/api/v1/partner/me', { body: { display_name: 'Changed' } })
  expect(patched.status).toBe(200)
  await sandbox.services.state.transaction(async (tx) => {
    tx.put('users', { ...(first as UserRow), first_name: 'Renamed' })
    tx.remove('users', (second as UserRow).id)
  })
  const created = await call('POST', '/api/v1/partner/auth/register', {
    body: {
      email: `new.${Date.now()}@example.com`,
      phone_number: '+14155550100',
      first_name: 'New',
      last_name: 'User',
      password: 'Bench-Passw0rd!',
      ssn: '123-45-6789',
      date_of_birth: '1980-01-01',
    },
  })
  expect(created.status).toBe(201)
}

describe('reset to the fixtures', () => {
  for (const mode of ['memory', 'data file'] as const) {
    it(`restores exactly the fixtures after writes, again and again (${mode})`, async () => {
      const data = mode === 'data file' ? join(dir, 'sandbox.json') : undefined
      const { sandbox, call } = await setup({ fixtures, data })
      const initial = await rowsOf(sandbox)
      expect(initial.users[plainUserId]?.password_hash).toMatch(/^scrypt\$/)
      for (let round = 0; round < 3; round++) {
        await scribble(sandbox, call)
        expect(await rowsOf(sandbox)).not.toEqual(initial)
        const reset = await call('POST', '/_sandbox/reset', { creds: null })
        expect(reset.status).toBe(200)
        expect(await rowsOf(sandbox)).toEqual(initial)
      }
      // The fixture user given a plain password still logs in with it after the resets.
      const login = await call('POST', '/api/v1/partner/auth/login', {
        body: { email: 'plain@example.com', password: 'Plain-Passw0rd!' },
      })
      expect(login.status).toBe(200)
    })
  }

  // The memory engine hands out its stored rows themselves; PostgreSQL reads new objects from
  // the wire each time, so there is no stored object a caller could change in place.
  it.skipIf(testEngine === 'postgres')(
    'a fixture row cannot be changed in place, so no bug can change what a reset restores',
    async () => {
      const { sandbox } = await setup({ fixtures })
      const row = sandbox.store.get('users', plainUserId) as UserRow
      expect(() => {
        ;(row as { first_name: string }).first_name = 'Mutated'
      }).toThrow(TypeError)
      expect(() => {
        ;(row.address as Record<string, unknown>).city = 'Elsewhere'
      }).toThrow(TypeError)
      await sandbox.store.reset()
      expect(sandbox.store.get('users', plainUserId)?.first_name).toBe(row.first_name)
    },
  )
})
