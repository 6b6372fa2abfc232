import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { httpCall, servedForTest, tempDirForTest } from './helpers.js'

/**
 * `close()` of the programmatic API, called more than once (a test's own close, then its
 * teardown's; a Playwright globalTeardown run twice): every call resolves, the sandbox closes
 * once, and its port stops answering.
 */
describe('closing a sandbox twice', () => {
  it('resolves every call, and the port stops answering', async () => {
    const sandbox = await servedForTest()
    const call = httpCall(sandbox.url)
    expect((await call('GET', '/_sandbox/health', { creds: null })).status).toBe(200)
    await expect(Promise.all([sandbox.close(), sandbox.close()])).resolves.toEqual([
      undefined,
      undefined,
    ])
    await expect(sandbox.close()).resolves.toBeUndefined()
    await expect(fetch(`${sandbox.url}/_sandbox/health`)).rejects.toThrow()
  })
})

describe('closing a sandbox with a data file twice', () => {
  it('writes nothing the second time: a later sandbox on the same file keeps its writes', async () => {
    const data = join(tempDirForTest(), 'sandbox.json')
    const first = await servedForTest({ data })
    await first.close()
    // The next sandbox on that file, as a test restarts on its data file.
    const second = await servedForTest({ data })
    const created = await httpCall(second.url)('POST', '/_sandbox/partners', {
      creds: null,
      body: { name: 'Written after the first closed' },
    })
    expect(created.status, created.text).toBe(201)
    // The first sandbox's teardown closes it again while the second one holds the file.
    await first.close()
    await second.close()
    const third = await servedForTest({ data })
    const partners = await httpCall(third.url)('GET', '/_sandbox/partners', { creds: null })
    expect(partners.json.data.map((p: { name: string }) => p.name)).toContain(
      'Written after the first closed',
    )
  })
})
