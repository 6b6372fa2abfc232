// Builds large data sets for the benchmarks directly (never committed, never through the API,
// so 100k users take about a second): a data file written by the sandbox's own snapshot writer
// (the file a restart reads), or a fixtures file for a sandbox without a data file. Every user belongs to the bundled default
// partner, so the benchmarks' requests run against a partner that really has N users.
import { randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { collectionNames } from '../dist/src/store/records.js'
import { SCHEMA_VERSION, SNAPSHOT_FORMAT } from '../dist/src/store/snapshot-file.js'
import { captureSnapshot, writeSnapshot } from '../dist/src/store/snapshot-writer.js'
import { root } from './lib.mjs'

const FIRST = ['Jamil', 'Jaeden', 'Maria', 'Wei', 'Amara', 'Lukas', 'Priya', 'Diego']
const LAST = ['Kreiger', 'Grant', 'Okafor', 'Nakamura', 'Silva', 'Novak', 'Haddad', 'Larsen']
const NOW = '2026-01-15T09:00:00.000Z'

const fixtures = () => JSON.parse(readFileSync(join(root, 'fixtures', 'default.json'), 'utf8'))

/** A user row shaped like the fixtures' users (about 650 bytes of JSON). */
function userRow(partnerId, passwordHash, i) {
  const first = FIRST[i % FIRST.length]
  const last = LAST[(i >> 3) % LAST.length]
  return {
    id: randomUUID(),
    partner_id: partnerId,
    email: `${first}.${last}.${i}@example.com`.toLowerCase(),
    phone_number: `+1${String(6_000_000_000 + i)}`,
    first_name: first,
    last_name: last,
    date_of_birth: `19${70 + (i % 30)}-0${1 + (i % 9)}-1${i % 10}`,
    address: {
      line1: `${100 + (i % 9_000)} Ada Expressway`,
      city: 'Port Abbyside',
      state: 'ME',
      zip: String(10_000 + (i % 89_999)),
      country_code: 'US',
    },
    secondary_address: {},
    provider_consumer_id: null,
    kyc_status: 'not_started',
    metadata: {},
    is_active: true,
    password_hash: passwordHash,
    ssn_last4: String(1_000 + (i % 9_000)),
    profile_picture_url: null,
    created_at: NOW,
    updated_at: NOW,
  }
}

/** The bundled fixtures plus `count` generated users of the default partner, as row lists. */
function rows(count) {
  const { partners, users } = fixtures()
  const [partner] = partners
  const extra = Array.from({ length: Math.max(0, count - users.length) }, (_, i) =>
    userRow(partner.id, users[0].password_hash, i),
  )
  return { partners, users: [...users, ...extra] }
}

/** Writes a data file (snapshot, no journal) holding `count` users, as the sandbox writes one. */
export async function writeDataFile(file, count) {
  const { partners, users } = rows(count)
  const collections = Object.fromEntries(collectionNames.map((name) => [name, {}]))
  for (const p of partners) collections.partners[p.id] = { scenario: null, ...p }
  for (const u of users) collections.users[u.id] = u
  const head = { format: SNAPSHOT_FORMAT, schema_version: SCHEMA_VERSION, seq: 0, saved_at: NOW }
  await writeSnapshot(file, captureSnapshot(head, collections))
}

/** Writes a fixtures file (the `fixtures` option) holding `count` users. */
export function writeFixturesFile(file, count) {
  writeFileSync(file, JSON.stringify(rows(count)))
}
