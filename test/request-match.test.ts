import { describe, expect, it } from 'vitest'
import { compareRequest, pathMatches, subsetDifferences } from '../src/domain/request-match.js'

describe('request matching (rules, journal filters, verification)', () => {
  it.each([
    ['/api/v1/partner/me', '/api/v1/partner/me', true],
    ['/api/v1/partner/me', '/api/v1/partner/me/', false],
    ['/api/v1/partner/transactions/{id}', '/api/v1/partner/transactions/txn_1', true],
    ['/api/v1/partner/transactions/{id}', '/api/v1/partner/transactions/txn_1/refund', false],
    ['/api/v1/partner/cards/*', '/api/v1/partner/cards/deposits/dep_1', true],
    ['/api/v1/partner/a.b', '/api/v1/partner/aXb', false],
  ])('path %s fits %s: %s', (pattern, path, fits) => {
    expect(pathMatches(pattern, path)).toBe(fits)
  })

  it('a JSON subset: fields given must be equal, others ignored; arrays item by item', () => {
    const body = { email: 'a@x.test', address: { city: 'Austin', zip: '78701' }, tags: ['a', 'b'] }
    expect(subsetDifferences({ address: { city: 'Austin' } }, body, 'body')).toEqual([])
    expect(subsetDifferences({ address: { city: 'Boston' } }, body, 'body')).toEqual([
      'body.address.city: expected "Boston", got "Austin"',
    ])
    expect(subsetDifferences({ tags: ['a'] }, body, 'body')).toEqual([
      'body.tags: expected 1 item, got 2',
    ])
    expect(subsetDifferences({ tags: ['a', 'c'] }, body, 'body')).toEqual([
      'body.tags.1: expected "c", got "b"',
    ])
    expect(subsetDifferences({ phone: '1' }, body, 'body')).toEqual([
      'body.phone: expected "1", got nothing',
    ])
    expect(subsetDifferences({ email: 'a@x.test' }, null, 'body')).toEqual([
      'body: expected an object, got null',
    ])
    // 1 and "1" differ: JSON values are compared as they are.
    expect(subsetDifferences({ n: 1 }, { n: '1' }, 'body')).toEqual(['body.n: expected 1, got "1"'])
  })

  it('says every criterion a request misses, and how many checks there were', () => {
    const result = compareRequest(
      {
        method: 'post',
        path: '/api/v1/partner/auth/register',
        query: { a: '1' },
        headers: { 'X-Trace': 'abc' },
        body: { email: 'a@x.test', first_name: 'Ada' },
      },
      {
        method: 'GET',
        path: '/api/v1/partner/auth/register',
        query: {},
        headers: { 'x-trace': 'abc' },
        body: { email: 'b@x.test', first_name: 'Ada' },
      },
    )
    expect(result.checks).toBe(6)
    expect(result.differences).toEqual([
      'method: expected POST, got GET',
      'query.a: expected "1", got nothing',
      'body.email: expected "a@x.test", got "b@x.test"',
    ])
  })
})
