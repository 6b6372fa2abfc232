import { afterEach, describe, expect, it } from 'vitest'
import { type IndexName, indexDefs } from '../src/state/indexes.js'
import { MemoryState } from '../src/state/memory-state.js'
import { tableOf } from '../src/state/postgres/index-sql.js'
import { PostgresState } from '../src/state/postgres/postgres-state.js'
import {
  indexStatements,
  partnerColumn,
  tableStatements,
} from '../src/state/postgres/statements.js'
import type { State } from '../src/state/seam.js'
import { defineIndexes } from '../src/store/indexes.js'
import {
  type CollectionName,
  collectionNames,
  emptyCollections,
  type PartnerRow,
  type UserRow,
} from '../src/store/records.js'
import { Store } from '../src/store/store.js'
import { tenantCollections } from '../src/store/tenants.js'
import { describePostgres, freshDatabaseUrl } from './postgres.js'

// A partner's reads and transactions (State.tenant, a transaction's scope), on both engines:
// another partner's rows of a tenant collection are not found, counted, paged, written or
// removed through them. An email two partners' users share puts both under one index key.

const opened: State[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((state) => state.close()))
})

const SHARED = 'shared@example.com'
const AT = '2026-01-01T00:00:00.000Z'
// Whole rows: PostgreSQL's tables are typed, NOT NULL where the schema says, with foreign keys.
const partner = (id: string): PartnerRow => ({
  id,
  name: id,
  display_name: id,
  slug: id,
  api_key: `pk_test_${id}`,
  api_secret_hash: 'scrypt$test',
  allowed_origins: [],
  webhook_url: null,
  scopes: ['users'],
  rate_limit: 100,
  status: 'active',
  contact_email: `${id}@example.com`,
  contact_name: 'Ops',
  config: {},
  scenario: null,
  created_at: AT,
  updated_at: AT,
})
const user = (id: string, partnerId: string, email = `${id}@example.com`): UserRow => ({
  id,
  partner_id: partnerId,
  email,
  phone_number: '+14155550100',
  first_name: 'Robin',
  last_name: 'Tester',
  date_of_birth: '1990-04-12',
  address: {},
  secondary_address: {},
  provider_consumer_id: null,
  kyc_status: 'approved',
  metadata: {},
  is_active: true,
  password_hash: 'scrypt$test',
  ssn_last4: '1234',
  profile_picture_url: null,
  created_at: AT,
  updated_at: AT,
})
const META = { id: 'sandbox', session_signing_key: 'k'.repeat(32) } as const

async function seeded(state: State): Promise<State> {
  opened.push(state)
  await state.transaction(async (tx) => {
    tx.put('partners', partner('p1'))
    tx.put('partners', partner('p2'))
    tx.put('users', user('u-1', 'p1', SHARED))
    tx.put('users', user('u-2', 'p2', SHARED))
    tx.put('users', user('u-3', 'p1'))
    tx.put('meta', META)
  })
  return state
}

const engines: [string, (fn: () => void) => void, () => Promise<State>][] = [
  [
    'memory',
    (fn) => describe('tenant scope, memory engine', fn),
    async () => {
      const store = await Store.open({ seed: emptyCollections })
      defineIndexes(store)
      return seeded(new MemoryState(store))
    },
  ],
  [
    'postgres',
    (fn) => describePostgres('tenant scope, PostgreSQL engine', fn),
    async () =>
      seeded(await PostgresState.open({ url: freshDatabaseUrl(), seed: emptyCollections })),
  ],
]

it("a partner's statements on PostgreSQL name the partner, for every tenant table and index", () => {
  for (const collection of collectionNames) {
    const scoped = tableStatements(collection, true)
    const column = partnerColumn(collection)
    expect(column !== undefined, collection).toBe(tenantCollections.has(collection))
    if (!column) continue
    for (const text of [scoped.get, scoped.all, scoped.remove])
      expect(text, collection).toMatch(new RegExp(`${column} = \\$\\d`))
  }
  for (const index of Object.keys(indexDefs) as IndexName[]) {
    const collection: CollectionName = tableOf(index)
    if (!partnerColumn(collection)) continue
    const scoped = indexStatements(index, true)
    const counted = 'counted' in indexDefs[index] && indexDefs[index].counted
    const texts = [scoped.lookup, scoped.lookupOne, scoped.has, scoped.forward, scoped.reverse]
    texts.push(scoped.forwardAfter, scoped.reverseAfter, scoped.due)
    if (!counted) texts.push(scoped.count)
    for (const text of texts) expect(text, index).toMatch(/partner_id = \$\d|id = \$\d/)
  }
})

for (const [, suite, open] of engines) {
  suite(() => {
    it("a partner's reads find its own rows only, by id, index, page and count", async () => {
      const state = await open()
      const p1 = state.tenant('p1')
      const p2 = state.tenant('p2')
      expect(await p1.get('users', 'u-1')).toEqual(user('u-1', 'p1', SHARED))
      expect(await p1.get('users', 'u-2')).toBeUndefined()
      expect((await p1.lookup('users_by_email', SHARED)).map((u) => u.id)).toEqual(['u-1'])
      expect((await p2.lookup('users_by_email', SHARED)).map((u) => u.id)).toEqual(['u-2'])
      expect((await p2.lookupOne('users_by_email', SHARED))?.id).toBe('u-2')
      // The first row under the key is p1's: p2's page of one is its own row, not an empty one.
      expect((await p2.range('users_by_email', SHARED, { limit: 1 })).map((u) => u.id)).toEqual([
        'u-2',
      ])
      expect(
        (await p1.range('users_by_email', SHARED, { reverse: true })).map((u) => u.id),
      ).toEqual(['u-1'])
      expect(await p1.has('users_by_email', SHARED, 'u-2')).toBe(false)
      expect(await p2.has('users_by_email', SHARED, 'u-2')).toBe(true)
      expect(await p1.count('users_by_email', SHARED)).toBe(1)
      expect(await p1.count('users_by_partner', 'p1')).toBe(2)
      expect((await p1.all('users')).map((u) => u.id).sort()).toEqual(['u-1', 'u-3'])
      // The sandbox's own rows are no partner's, and every partner reads them.
      expect(await p2.get('meta', 'sandbox')).toEqual(META)
      // Unscoped reads see every partner's.
      expect((await state.lookup('users_by_email', SHARED)).map((u) => u.id)).toEqual([
        'u-1',
        'u-2',
      ])
    })

    it("a partner's transaction reads its own rows, removes nothing of another's, writes none", async () => {
      const state = await open()
      const seen = await state.transaction(
        async (tx) => {
          tx.remove('users', 'u-2')
          tx.put('users', { ...user('u-3', 'p1'), email: 'new@example.com' })
          return [await tx.get('users', 'u-2'), (await tx.get('users', 'u-3'))?.email]
        },
        { partner: 'p1' },
      )
      expect(seen).toEqual([undefined, 'new@example.com'])
      expect(await state.get('users', 'u-2')).toEqual(user('u-2', 'p2', SHARED))
      await expect(
        state.transaction(
          async (tx) => {
            tx.put('users', user('u-4', 'p1'))
            tx.put('users', user('u-5', 'p2'))
          },
          { partner: 'p1' },
        ),
      ).rejects.toThrow("a users row of another partner is written in partner p1's transaction")
      expect(await state.get('users', 'u-4')).toBeUndefined()
      expect(await state.get('users', 'u-5')).toBeUndefined()
    })
  })
}
