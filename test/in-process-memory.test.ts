import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { JOURNAL_CAPACITY } from '../src/http/request-journal.js'
import { acme, orgHeaders, setup } from './helpers.js'

/**
 * A sandbox answering in process (app.request, sandbox.fetch: an MSW handler, a Playwright
 * route, this suite) for a whole long suite: once its request journal is full, the heap it
 * keeps does not grow with the requests it answers. Each answer used to be copied for the
 * journal (Response.clone) and the copy kept unread, and Node kept that copy's stream alive:
 * about 8 KB a request, gigabytes over a long run.
 */

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** The heap in use after full collections (a weak reference is cleared on the second). */
function heapAfterCollection(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const MEASURED = 3_000
/** What growth a request may leave: far under the copy's 8 KB, far over the heap's noise. */
const BYTES_PER_REQUEST = 1_024

describe('a sandbox answering in process', () => {
  it(`keeps no more heap after ${MEASURED} more requests once its journal is full`, async () => {
    // Past the default partner's 1,000 a minute: the limiter is not what this measures.
    const { sandbox } = await setup({ rateLimit: 'off' })
    const answer = async () => {
      const res = await sandbox.fetch(
        new Request('http://sandbox.test/api/v1/partner/me', { headers: orgHeaders(acme) }),
      )
      expect(res.status).toBe(200)
      await res.text()
    }
    const answerMany = async (count: number) => {
      for (let i = 0; i < count; i += 50) await Promise.all(Array.from({ length: 50 }, answer))
    }
    await answerMany(JOURNAL_CAPACITY + 500)
    const before = heapAfterCollection()
    await answerMany(MEASURED)
    const grown = heapAfterCollection() - before
    expect(grown).toBeLessThan(MEASURED * BYTES_PER_REQUEST)
  })
})
