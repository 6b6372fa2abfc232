import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { z } from 'zod'
import { parseDatabaseUrl } from '../src/state/database-url.js'
import { type IndexName, indexDefs } from '../src/state/indexes.js'
import { tableColumns } from '../src/state/postgres/columns.js'
import { indexSql } from '../src/state/postgres/index-sql.js'
import { migrate } from '../src/state/postgres/migrate.js'
import { PostgresState } from '../src/state/postgres/postgres-state.js'
import { tables } from '../src/state/postgres/tables.js'
import {
  type CollectionName,
  collectionNames,
  collectionSchemas,
  emptyCollections,
  ephemeralCollections,
} from '../src/store/records.js'
import {
  acme,
  connectBank,
  createPartner,
  onboardedUser,
  onboardingApplicant,
  receiverForTest,
  registerAndLogin,
  setup,
  walkFlow,
} from './helpers.js'
import { describePostgres, freshDatabaseUrl, testDatabase } from './postgres.js'
import { postgresBin } from './postgres-server.js'

// Issue 38: the zod row schemas (src/store/records.ts) stay the one source of truth of the
// relational schema. A migrated schema's tables are held to them column by column, its
// foreign keys and indexes to tables.ts and index-sql.ts; every index's SQL key is, row by row
// over a whole flow, the key the memory engine gives that row; and an operator can read a
// partner's cards and balances with one plain SELECT in psql.

let client: pg.Client
beforeAll(async () => {
  if (!testDatabase) return
  client = new pg.Client({ connectionString: testDatabase })
  client.on('error', () => {})
  await client.connect()
})
afterAll(async () => {
  await client?.end()
})

/** A new schema of the test server, migrated; answers its name. */
async function migrated(): Promise<string> {
  const { schema } = parseDatabaseUrl(freshDatabaseUrl())
  await migrate(client, schema)
  return schema
}

/**
 * A record field's column as zod itself describes the field (its JSON Schema, not columns.ts's
 * reading of zod's internals): strings are text (times, `…_at`, timestamptz; base64, bytes,
 * bytea), integers bigint, other numbers double precision, booleans boolean, anything else
 * json; nullable when the field takes null or may be absent.
 */
function columnFromZod(name: string, field: Record<string, unknown>, required: boolean) {
  let nullable = !required
  let forms: Record<string, unknown>[] = Array.isArray(field.anyOf)
    ? (field.anyOf as Record<string, unknown>[])
    : [field]
  forms = forms.flatMap((form) => {
    if (form.type === 'null') {
      nullable = true
      return []
    }
    if (Array.isArray(form.type)) {
      const types = form.type as string[]
      if (types.includes('null')) nullable = true
      const rest = types.filter((t) => t !== 'null')
      return [{ ...form, type: rest.length === 1 ? rest[0] : rest }]
    }
    return [form]
  })
  const type = forms.length === 1 ? forms[0]?.type : undefined
  const bytes = forms.length === 1 && forms[0]?.contentEncoding === 'base64'
  const sqlType =
    type === 'string'
      ? bytes
        ? 'bytea'
        : name.endsWith('_at')
          ? 'timestamp with time zone'
          : 'text'
      : type === 'integer'
        ? 'bigint'
        : type === 'number'
          ? 'double precision'
          : type === 'boolean'
            ? 'boolean'
            : 'json'
  return { name, sqlType, nullable }
}

function zodColumns(collection: CollectionName) {
  const json = z.toJSONSchema(collectionSchemas[collection] as z.ZodType, {
    unrepresentable: 'any',
    io: 'input',
  }) as { properties: Record<string, Record<string, unknown>>; required?: string[] }
  const required = new Set(json.required ?? [])
  return Object.entries(json.properties).map(([name, field]) =>
    columnFromZod(name, field, required.has(name)),
  )
}

describePostgres('the relational schema, held to the zod row schemas', () => {
  it("every collection's table has its record's fields as columns: name, type, nullability", async () => {
    const schema = await migrated()
    const { rows } = await client.query<{
      table_name: string
      column_name: string
      data_type: string
      is_nullable: 'YES' | 'NO'
    }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
      [schema],
    )
    const inTable = (table: string) =>
      rows
        .filter((row) => row.table_name === table)
        .map((row) => ({
          name: row.column_name,
          sqlType: row.data_type,
          nullable: row.is_nullable === 'YES',
        }))
    for (const collection of collectionNames) {
      const declared = tableColumns[collection].map(({ name, sqlType, nullable }) => ({
        name,
        sqlType,
        nullable,
      }))
      // columns.ts reads the zod schema as zod describes it.
      expect(declared, `${collection}: columns.ts against zod`).toEqual(zodColumns(collection))
      // The migrated table is those columns, in the schema's field order, and `inserted`
      // (after the baseline's columns: a later migration's come after it).
      const table = inTable(collection)
      expect(
        table.filter((column) => column.name !== 'inserted'),
        `${collection}: the table against columns.ts`,
      ).toEqual(declared)
      expect(table).toContainEqual({ name: 'inserted', sqlType: 'bigint', nullable: false })
    }
    // Nothing but the collections' tables and the sandbox's own.
    const names = [...new Set(rows.map((row) => row.table_name))].sort()
    expect(names).toEqual(
      [...collectionNames, 'sandbox_counters', 'sandbox_settings', 'schema_migrations'].sort(),
    )
  })

  it("an enum's column CHECKs its values; tenant tables key on (partner_id, id); ephemeral ones are UNLOGGED", async () => {
    const schema = await migrated()
    const { rows: checks } = await client.query<{ table: string; def: string }>(
      `SELECT c.relname AS table, pg_get_constraintdef(k.oid) AS def FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND k.contype = 'c'`,
      [schema],
    )
    let checked = 0
    for (const collection of collectionNames) {
      for (const column of tableColumns[collection].filter((c) => c.values)) {
        const def = checks.find(
          (check) =>
            check.table === collection &&
            (column.values ?? []).every((value) => check.def.includes(`'${value}'::text`)) &&
            check.def.includes(`(${column.sql}`),
        )
        expect(def, `${collection}.${column.name} CHECKs ${column.values}`).toBeDefined()
        checked++
      }
    }
    expect(checked).toBeGreaterThan(20)
    // The card's status is one of them: a status outside its values is refused.
    expect(
      checks.some((c) => c.table === 'cards' && /status.*'active'.*'frozen'.*'closed'/.test(c.def)),
    ).toBe(true)

    const { rows: unique } = await client.query<{
      table: string
      primary: boolean
      columns: string[]
    }>(
      `SELECT c.relname AS table, i.indisprimary AS primary,
         array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
           JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
       JOIN pg_namespace ns ON ns.oid = c.relnamespace
       WHERE ns.nspname = $1 AND i.indisunique`,
      [schema],
    )
    // Distributing by partner (Citus) asks that a tenant table's only unique key start with it.
    for (const collection of collectionNames) {
      const key = tables[collection].tenant ? ['partner_id', 'id'] : ['id']
      expect(
        unique.filter((u) => u.table === collection),
        collection,
      ).toEqual([{ table: collection, primary: true, columns: key }])
    }
    expect(tables.users.tenant && tables.cards.tenant && !tables.partners.tenant).toBe(true)

    const { rows: unlogged } = await client.query<{ relname: string }>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relpersistence = 'u' ORDER BY 1`,
      [schema],
    )
    expect(unlogged.map((row) => row.relname)).toEqual(
      [...ephemeralCollections, 'sandbox_counters'].sort(),
    )
  })

  it('every foreign key tables.ts declares is there, cascading on delete, checked at commit', async () => {
    const schema = await migrated()
    const { rows } = await client.query<{
      table: string
      columns: string[]
      references: string
      to: string[]
      on_delete: string
      deferred: boolean
    }>(
      `SELECT c.relname AS table, f.relname AS references,
         array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS x(attnum, n)
           JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.attnum ORDER BY x.n) AS columns,
         array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY AS x(attnum, n)
           JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.attnum ORDER BY x.n) AS to,
         k.confdeltype AS on_delete, k.condeferrable AND k.condeferred AS deferred
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_class f ON f.oid = k.confrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND k.contype = 'f'`,
      [schema],
    )
    const have = rows
      .map((fk) => `${fk.table} (${fk.columns}) → ${fk.references} (${fk.to}) ${fk.on_delete}`)
      .sort()
    const declared = collectionNames
      .flatMap((name) =>
        tables[name].references.map((fk) => `${name} (${fk.columns}) → ${fk.table} (${fk.to}) c`),
      )
      .sort()
    expect(have).toEqual(declared)
    expect(rows.every((fk) => fk.deferred)).toBe(true)
    // What the issue names at least: user → partner, card → user, transaction → card.
    expect(declared).toEqual(
      expect.arrayContaining([
        'users (partner_id) → partners (id) c',
        'cards (partner_id,user_id) → users (partner_id,id) c',
        'transactions (partner_id,card_id) → cards (partner_id,id) c',
      ]),
    )
  })

  it('every index index-sql.ts declares is there, named for its lookup, on its table', async () => {
    const schema = await migrated()
    const { rows } = await client.query<{ name: string; table: string; def: string }>(
      'SELECT indexname AS name, tablename AS table, indexdef AS def FROM pg_indexes WHERE schemaname = $1',
      [schema],
    )
    const names = Object.keys(indexSql) as IndexName[]
    expect(names.sort()).toEqual((Object.keys(indexDefs) as IndexName[]).sort())
    for (const name of names) {
      const found = rows.find((row) => row.name === name)
      if (indexSql[name].primary) {
        // Served by its table's primary key, which starts with its key.
        expect(found, name).toBeUndefined()
        const key = rows.find((row) => row.name === `${indexDefs[name].collection}_pkey`)
        expect(key?.def, name).toContain(`(${indexSql[name].key},`)
        continue
      }
      expect(found, name).toBeDefined()
      expect(found?.table, name).toBe(indexDefs[name].collection)
      // A lookup of some rows only (pending, in review, not yet ended) is a partial index.
      expect(found?.def.includes(' WHERE '), name).toBe(indexSql[name].where !== undefined)
    }
  })

  it("over a whole flow, each row's SQL key in every index is the memory engine's key of it", async () => {
    const url = freshDatabaseUrl()
    const { schema } = parseDatabaseUrl(url)
    const receiver = await receiverForTest(200)
    receiver.otherwise = 500
    const { sandbox, call } = await setup({ database: url })
    const api = async (method: string, path: string, headers = {}, body?: unknown) => {
      const res = await call(method, `/api/v1/partner${path}`, { creds: acme, headers, body })
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300)
      return res.json
    }
    // A webhook endpoint first, so the flow's events are delivered (the first answered 200,
    // the rest 500: some deliveries done, some waiting for their retry).
    await api('POST', '/webhooks', {}, { url: receiver.url, events: [] })
    const { bearer: headers, cardId } = await onboardedUser(call)
    await api('POST', '/cards/simulate-fund', headers, { amount: 50 })
    const buy = (
      await api('POST', '/cards/simulate-purchase', headers, {
        amount: 20,
        merchant: { name: 'Shop' },
      })
    ).data.id as string
    await api('GET', '/cards/transactions?limit=10', headers)
    await api('POST', `/transactions/${buy}/simulate-clearing`, headers)
    await api('POST', '/disputes', headers, {
      transaction_id: buy,
      reason: 'incorrect_amount',
      amount: 5,
    })
    const bank = await connectBank(call, headers)
    await api('POST', '/cards/deposits', headers, { amount: 25, external_bank_account_id: bank })
    // An onboarding left in manual review (SSN 000000004), and a session logged out.
    const reviewed = await registerAndLogin(call, { ssn: '000000004' })
    const start = await api(
      'POST',
      '/cards/onboarding',
      reviewed.bearer,
      onboardingApplicant(reviewed.user),
    )
    await walkFlow(call, start.data.onboardingId)
    const review = await api(
      'POST',
      `/cards/onboarding/${start.data.onboardingId}/complete`,
      reviewed.bearer,
      { result: 'pass', data: {}, agreement_accepted: true },
    )
    expect(review.data.status).toBe('manual_review')
    await api('POST', '/auth/logout', reviewed.bearer)
    // A login not yet verified: its code stays open.
    await api(
      'POST',
      '/auth/login',
      {},
      {
        email: reviewed.user.email,
        password: reviewed.user.password,
      },
    )
    // Another partner's user and card, a global rule, a partner's counted rule, a scenario
    // rule's count and a sink's request; a scenario of its own (partners_by_scenario).
    const other = await createPartner(call, { name: 'Globex', scenario: 'default' })
    await onboardedUser(call, {}, other.creds)
    // A second of that name: a numbered slug (partners_by_slug_stem).
    await createPartner(call, { name: 'Globex' })
    // A clock of its own (partners_with_own_clock).
    const moved = await call('POST', `/_sandbox/partners/${other.id}/clock/advance`, {
      creds: null,
      body: { by: '1h' },
    })
    expect(moved.status, moved.text).toBe(200)
    const global = await call('POST', '/_sandbox/rules', {
      creds: null,
      body: {
        match: { method: 'POST', path: '/api/v1/partner/auth/register' },
        respond: {
          status: 409,
          body: {
            success: false,
            error: { code: 'conflict', message: 'Taken.' },
            requestId: 'req_rule',
          },
        },
        times: 5,
      },
    })
    expect(global.status, global.text).toBe(201)
    const counted = await call('POST', `/_sandbox/partners/${other.id}/rules`, {
      creds: null,
      body: {
        match: { method: 'GET', path: '/api/v1/partner/usage' },
        respond: { status: 503 },
        latency_ms: [1, 2],
        times: 2,
      },
    })
    expect(counted.status, counted.text).toBe(201)
    expect((await call('GET', '/api/v1/partner/usage', { creds: other.creds })).status).toBe(503)
    const flaky = await call('POST', '/_sandbox/scenarios', {
      creds: null,
      body: {
        name: 'flaky-me',
        rules: [
          { match: { path: '/api/v1/partner/me' }, decide: { otp_code: '123456' }, once: true },
        ],
      },
    })
    expect(flaky.status, flaky.text).toBe(201)
    await call('GET', '/api/v1/partner/me', { headers: { 'x-sandbox-scenario': 'flaky-me' } })
    const sink = await call('POST', '/_sandbox/sink/inbox', { creds: null, body: { a: 1 } })
    expect(sink.status, sink.text).toBeLessThan(300)
    const shown = (await api('GET', '/cards/status', headers)).data.card.available_balance
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    await receiver.waitFor(2)

    // Read back once nothing writes any more: through the seam, and by SQL.
    await sandbox.close()
    const state = await PostgresState.open({ url, seed: emptyCollections })
    // The index keys call the schema's own functions (sandbox_hour, sandbox_day).
    await client.query(`SET search_path TO ${schema}`)
    try {
      const rows = new Map<CollectionName, Record<string, unknown>[]>()
      for (const name of collectionNames) rows.set(name, await state.all(name))
      const unchecked: string[] = []
      for (const index of Object.keys(indexDefs) as IndexName[]) {
        const { collection, key } = indexDefs[index]
        const { key: sqlKey, where } = indexSql[index]
        const found = await client.query<{ id: string; k: string | null }>(
          `SELECT id, (${sqlKey}) AS k FROM ${collection} WHERE ${where ?? 'true'}`,
        )
        const bySql = new Map(found.rows.map((row) => [row.id, row.k ?? undefined]))
        const mine = rows.get(collection) ?? []
        let keyed = 0
        for (const row of mine) {
          const memory = (key as (row: unknown) => string | undefined)(row)
          expect(bySql.get(row.id as string), `${index} of ${collection} ${row.id}`).toBe(memory)
          if (memory !== undefined) keyed++
        }
        if (keyed === 0) unchecked.push(index)
      }
      // Not vacuous: the flow put rows under a key of every index.
      expect(unchecked).toEqual([])
      expect(rows.get('webhook_deliveries')?.length).toBeGreaterThan(2)
      expect(rows.get('transactions')?.length).toBeGreaterThan(1)

      // Issue 38: one plain SELECT in psql lists a partner's cards with their balances.
      const acmeId = (await state.lookupOne('partners_by_api_key', acme.key))?.id as string
      const cardRow = await state.get('cards', cardId)
      const user = await state.get('users', cardRow?.user_id as string)
      expect(cardRow?.available_balance_cents).toBeGreaterThan(0)
      const others = (await state.all('cards')).filter((c) => c.partner_id !== acmeId)
      expect(others).toHaveLength(1)
      const psql = spawnSync(
        join(postgresBin() as string, 'psql'),
        [
          testDatabase as string,
          '--no-psqlrc',
          '--quiet',
          '--tuples-only',
          '--no-align',
          '--field-separator=|',
          '-c',
          `SET search_path TO ${schema}`,
          '-c',
          `SELECT c.id, u.email, c.available_balance_cents FROM cards c
              JOIN users u ON (u.partner_id, u.id) = (c.partner_id, c.user_id)
              WHERE c.partner_id = '${acmeId}' ORDER BY c.created_at`,
        ],
        { encoding: 'utf8' },
      )
      expect(psql.stderr).toBe('')
      expect(psql.status).toBe(0)
      const lines = psql.stdout.trim().split('\n')
      expect(lines).toContain(`${cardId}|${user?.email}|${cardRow?.available_balance_cents}`)
      expect(psql.stdout).not.toContain(others[0]?.id)
      // The column's cents are the balance the API showed, in dollars: $50 funded, $20
      // spent, $5 credited while disputed.
      expect(shown).toBe(35)
      expect(cardRow?.available_balance_cents).toBe(shown * 100)
    } finally {
      await client.query('RESET search_path')
      await state.close()
    }
  }, 120_000)
})
