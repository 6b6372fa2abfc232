import { beforeAll, describe, expect, it } from 'vitest'
import { sharedSetup, snapshotOf } from '../helpers.js'
import { buildTenant, type Tenant } from './tenants.js'

/**
 * Tenant isolation over every route of /openapi.json that takes an id: three partners, each
 * owning one of everything; every partner tries every id of the others, with every method
 * the route has. Never a 2xx, never another tenant's data in the answer, nothing changes.
 */

const { call } = sharedSetup({ seed: 21, rateLimit: 'off' })
let tenants: Tenant[]
let operations: { method: string; path: string }[]

/** Which id of a tenant fills a path parameter, by the path it appears in. */
function idFor(path: string, param: string, t: Tenant): string | undefined {
  if (param === 'deliveryId') return t.ids.delivery
  if (param === 'onboardingId') return t.ids.onboarding
  if (param === 'step') return 'identity_verification'
  const table: [RegExp, string][] = [
    [/\/webhooks\/\{id\}/, 'webhook'],
    [/\/transactions\/\{id\}/, 'purchase'],
    [/\/disputes\/\{id\}/, 'dispute'],
    [/\/deposits\/\{id\}/, 'deposit'],
    [/\/accounts\/\{id\}/, 'bank'],
  ]
  const key = table.find(([re]) => re.test(path))?.[1]
  return key ? t.ids[key] : undefined
}

/** Plausible bodies, so that a refusal is about ownership, not about a missing field. */
function bodyFor(path: string, victim: Tenant): unknown {
  if (path.endsWith('/complete')) return { result: 'pass', data: {}, agreement_accepted: true }
  if (path.endsWith('/evidence')) return { text: 'mine' }
  if (path.endsWith('/simulate-refund')) return { amount: 1 }
  if (path.includes('/webhooks/{id}') && !path.includes('deliver')) return { enabled: false }
  if (path.endsWith('/deposits')) return { amount: 1, external_bank_account_id: victim.ids.bank }
  return {}
}

beforeAll(async () => {
  tenants = []
  for (const name of ['iso-a', 'iso-b', 'iso-c']) tenants.push(await buildTenant(call, name))
  const doc = (await call('GET', '/openapi.json', { creds: null })).json
  operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
    ([path, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((method) => ({ method: method.toUpperCase(), path })),
  )
}, 120_000)

describe('tenant isolation', () => {
  it('covers every partner-API route that takes an id', () => {
    const withIds = operations.filter((o) => o.path.startsWith('/api/v1/') && o.path.includes('{'))
    expect(withIds.length).toBeGreaterThanOrEqual(15)
    for (const o of withIds) {
      for (const param of o.path.match(/\{(\w+)\}/g) ?? []) {
        const t = tenants[0] as Tenant
        expect(idFor(o.path, param.slice(1, -1), t), `${o.method} ${o.path}`).toBeDefined()
      }
    }
  })

  it("no partner reads, changes or learns of another partner's resources", async () => {
    const targets = operations.filter(
      (o) =>
        (o.path.startsWith('/api/v1/') || o.path.startsWith('/embed/')) && o.path.includes('{'),
    )
    // The tenants' endpoints refuse their deliveries, whose retries fall due 5 s later: with
    // the clock frozen and what is due run now, a probe run that takes longer on a loaded
    // machine sees no retry change the state it compares.
    await call('POST', '/_sandbox/clock/freeze', { creds: null })
    await call('POST', '/_sandbox/webhooks/flush', { creds: null })
    const before = await snapshotOf(call)
    let attempts = 0
    for (const attacker of tenants) {
      for (const victim of tenants) {
        if (victim === attacker) continue
        // The victim's identifiers that must never appear in the attacker's answers.
        const secrets = [
          victim.email,
          victim.userId,
          victim.partnerId,
          ...Object.values(victim.ids),
        ]
        for (const op of targets) {
          const path = op.path.replace(
            /\{(\w+)\}/g,
            (_, p: string) => idFor(op.path, p, victim) ?? 'x',
          )
          const res = await call(op.method, path, {
            creds: null,
            headers: attacker.headers,
            body:
              op.method === 'GET' || op.method === 'DELETE' ? undefined : bodyFor(op.path, victim),
          })
          attempts++
          const label = `${attacker.name} -> ${victim.name}: ${op.method} ${path} (${res.status})`
          expect(res.status, label).toBeGreaterThanOrEqual(400)
          expect(res.status, label).toBeLessThan(500)
          expect(res.json?.success, label).toBe(false)
          for (const secret of secrets) {
            // An id the attacker put in the URL may be echoed in the message; nothing else.
            if (path.includes(secret)) continue
            expect(res.text, `${label} leaks ${secret}`).not.toContain(secret)
          }
        }
      }
    }
    expect(attempts).toBeGreaterThanOrEqual(6 * 15)
    expect(await snapshotOf(call)).toBe(before)
    await call('POST', '/_sandbox/clock/unfreeze', { creds: null })
  }, 120_000)

  it('each partner still sees its own resources', async () => {
    for (const t of tenants) {
      const own = await call('GET', `/api/v1/partner/disputes/${t.ids.dispute}`, {
        creds: null,
        headers: t.headers,
      })
      expect(own.status).toBe(200)
      const list = await call('GET', '/api/v1/partner/transactions?limit=100', {
        creds: null,
        headers: t.headers,
      })
      const others = tenants.filter((o) => o !== t).flatMap((o) => Object.values(o.ids))
      for (const id of others) expect(list.text).not.toContain(id)
    }
  })
})
