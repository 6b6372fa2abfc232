import { describe, expect, it } from 'vitest'
import { setup } from './helpers.js'

// A partner's slug is its name's, numbered when taken (`worker`, `worker-2`, …), or the one
// asked for, refused when taken. A shared sandbox gathers many partners of one name.

describe('partner slugs', () => {
  it('numbers a taken slug, whatever numbers the names themselves carry', async () => {
    const { call } = await setup()
    const create = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/_sandbox/partners', { creds: null, body })
      return { status: res.status, slug: res.json.partner?.slug as string | undefined }
    }
    expect(await create({ name: 'Worker' })).toEqual({ status: 201, slug: 'worker' })
    expect(await create({ name: 'Worker' })).toEqual({ status: 201, slug: 'worker-2' })
    // "Worker 2" is worker-2, taken: numbered in its turn.
    expect(await create({ name: 'Worker 2' })).toEqual({ status: 201, slug: 'worker-2-2' })
    expect(await create({ name: 'Worker' })).toEqual({ status: 201, slug: 'worker-3' })
    expect(await create({ name: 'Other', slug: 'worker-4' })).toEqual({
      status: 201,
      slug: 'worker-4',
    })
    expect(await create({ name: 'Worker' })).toEqual({ status: 201, slug: 'worker-5' })
    expect((await create({ name: 'Other', slug: 'worker-2' })).status).toBe(409)
    expect((await create({ name: 'Other', slug: 'worker-2-2' })).status).toBe(409)
    expect(await create({ name: 'Other', slug: 'worker-2-3' })).toEqual({
      status: 201,
      slug: 'worker-2-3',
    })
  })

  it('cuts a long name to 48 characters without ending on a dash', async () => {
    const { call } = await setup()
    const res = await call('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: `${'a'.repeat(47)} b` },
    })
    expect(res.status, res.text).toBe(201)
    expect(res.json.partner.slug).toBe('a'.repeat(47))
  })
})
