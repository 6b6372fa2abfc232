import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { sharedSetup } from './helpers.js'

/**
 * Provenance (issue 41): every operation, component schema and field of /openapi.json says
 * whether the spec fixes it or the sandbox chose it, as `x-provenance` and a sentence in its
 * description; docs/contract-decisions.md lists the sandbox's choices.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field
let doc: any

const { call } = sharedSetup()
beforeAll(async () => {
  doc = (await call('GET', '/openapi.json', { creds: null })).json
})

const METHODS = ['get', 'put', 'post', 'patch', 'delete']
type Marked = { 'x-provenance'?: string; description?: string }

/** What lacks a provenance, or its sentence, among `[where, node]`. */
const unmarked = (nodes: [string, Marked][]) =>
  nodes
    .filter(
      ([, node]) =>
        !['spec', 'sandbox'].includes(node['x-provenance'] as string) ||
        !node.description?.includes('Provenance:'),
    )
    .map(([where]) => where)

describe('x-provenance on /openapi.json', () => {
  it('every operation (paths and webhooks) carries it and says it', () => {
    const operations: [string, Marked][] = []
    for (const group of ['paths', 'webhooks'])
      for (const [path, item] of Object.entries<Record<string, Marked>>(doc[group]))
        for (const method of METHODS)
          if (item[method]) operations.push([`${method} ${path}`, item[method]])
    expect(operations.length).toBeGreaterThan(100)
    expect(unmarked(operations)).toEqual([])
  })

  it('every component schema and each of its fields carries it and says it', () => {
    const nodes: [string, Marked][] = []
    for (const [name, schema] of Object.entries<Marked & { properties?: Record<string, Marked> }>(
      doc.components.schemas,
    )) {
      nodes.push([name, schema])
      for (const [field, property] of Object.entries<Marked>(schema.properties ?? {}))
        nodes.push([`${name}.${field}`, property])
    }
    expect(nodes.length).toBeGreaterThan(500)
    expect(unmarked(nodes)).toEqual([])
  })

  it('tells what the spec fixes from what the sandbox chose', () => {
    const op = (path: string, method: string) => doc.paths[path][method]['x-provenance']
    expect(op('/api/v1/partner/auth/register', 'post')).toBe('spec')
    expect(op('/api/v1/partner/cards/onboarding/{onboardingId}/complete', 'post')).toBe('spec')
    expect(op('/api/v1/partner/disputes', 'post')).toBe('sandbox')
    expect(op('/_sandbox/reset', 'post')).toBe('sandbox')
    const { schemas } = doc.components
    expect(schemas.User['x-provenance']).toBe('spec')
    expect(schemas.User.properties.kyc_status['x-provenance']).toBe('spec')
    expect(schemas.User.properties.profile_picture_url['x-provenance']).toBe('sandbox')
    for (const record of ['Card', 'Transaction', 'Deposit', 'Dispute', 'Error', 'SandboxEvent']) {
      expect(schemas[record]['x-provenance'], record).toBe('sandbox')
      expect(schemas[record].description).toContain('do not hard-code')
    }
    expect(schemas.StartOnboarding.properties.redirect_uri['x-provenance']).toBe('sandbox')
    expect(schemas.StartOnboarding.properties.ssn['x-provenance']).toBe('spec')
  })

  it('docs/contract-decisions.md names every sandbox-chosen record, and the APIs it follows', () => {
    const text = readFileSync('docs/contract-decisions.md', 'utf8')
    for (const api of ['Stripe Issuing', 'Lithic', 'Marqeta', 'Unit']) expect(text).toContain(api)
    for (const schema of ['Card', 'Transaction', 'Deposit', 'Dispute', 'Error', 'SandboxEvent'])
      expect(text, schema).toContain(`\`${schema}\``)
    expect(text).toContain('x-provenance')
  })
})
