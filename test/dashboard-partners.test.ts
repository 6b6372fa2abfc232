import { describe, expect, it } from 'vitest'
import { PARTNERS_PER_PAGE } from '../src/control/pages/partners-section.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { createPartner, setup } from './helpers.js'

// A sandbox shared by many test suites gathers partners (one a worker): the dashboard lists
// them a page at a time, so it answers alike with ten or ten thousand.

/** The partner ids the page lists, in order, and its paging links. */
function partnersOf(page: string) {
  const ids = [...page.matchAll(/data-testid="partners-row" data-id="([^"]+)"/g)].map((m) => m[1])
  const link = (name: string) =>
    page.match(new RegExp(`<a href="([^"]+)" data-testid="partners-${name}"`))?.[1]
  return { ids, next: link('next'), first: link('first') }
}

describe('the dashboard lists partners a page at a time', () => {
  it('pages through every partner, the selected one always listed', async () => {
    const { sandbox, call } = await setup()
    const made: string[] = []
    for (let n = 0; n < PARTNERS_PER_PAGE + 5; n++)
      made.push((await createPartner(call, { name: `Worker ${n}` })).id)
    const open = async (path: string) => partnersOf(await (await sandbox.app.request(path)).text())

    const first = await open('/_sandbox')
    expect(first.ids).toHaveLength(PARTNERS_PER_PAGE)
    expect(first.ids[0]).toBe(DEFAULT_PARTNER.id)
    expect(first.first).toBeUndefined()
    expect(first.next).toBeDefined()

    // The next page holds the rest, oldest first, and the selected partner (not on it) first.
    const second = await open((first.next as string).replaceAll('&amp;', '&'))
    const rest = made.filter((id) => !first.ids.includes(id))
    expect(second.ids).toEqual([DEFAULT_PARTNER.id, ...rest])
    expect(second.next).toBeUndefined()
    expect(second.first).toBeDefined()
    const listed = new Set([...first.ids, ...second.ids])
    expect(listed.size).toBe(first.ids.length + rest.length)
    for (const id of made) expect(listed.has(id)).toBe(true)

    // Selecting a partner of that page stays on it.
    const last = made.at(-1) as string
    const selected = await (
      await sandbox.app.request(`/_sandbox?partner=${last}&partners_after=${first.ids.at(-1)}`)
    ).text()
    expect(partnersOf(selected).ids).toEqual(rest)
    expect(selected).toMatch(new RegExp(`href="[^"]*partner=${last}[^"]*" class="selected"`))

    // A page whose first partner is gone (deleted since) starts again at the first partner.
    const gone = await open('/_sandbox?partners_after=ptr_gone')
    expect(gone.ids).toEqual(first.ids)
  }, 60_000)
})
