import { describe, expect, it } from 'vitest'
import type { InboxMessage } from '../src/domain/inbox.js'
import { inboxOf } from './inbox-state.js'

let serial = 0
function message(to: string, extra: Partial<InboxMessage> = {}): InboxMessage {
  const n = serial++
  return {
    id: `msg_${n}`,
    partner_id: 'ptr_a',
    user_id: `usr_${to}`,
    to,
    channel: 'email',
    kind: 'login_code',
    subject: 'Your code',
    body: `Your code is ${n}`,
    code: String(100000 + n),
    created_at: new Date(n * 1000).toISOString(),
    expires_at: new Date(n * 1000 + 600_000).toISOString(),
    ...extra,
  }
}

describe('inbox', () => {
  it('keeps the newest `capacity` messages, newest first, and lists them by recipient', async () => {
    const inbox = await inboxOf(5)
    const added: InboxMessage[] = []
    for (let i = 0; i < 12; i++) {
      added.push(message(i % 2 === 0 ? 'even@example.com' : 'odd@x.com'))
      await inbox.add(added.at(-1) as InboxMessage)
    }
    expect(await inbox.size()).toBe(5)
    const all = await inbox.list()
    expect(all).toEqual(added.slice(-5).reverse())
    const even = await inbox.list({ email: 'EVEN@example.com' })
    expect(even).toHaveLength(2)
    expect(even.every((m) => m.to === 'even@example.com')).toBe(true)
    expect(await inbox.list({ email: 'odd@x.com', limit: 1 })).toEqual([all[0]])
    expect(await inbox.list({ email: 'nobody@example.com' })).toEqual([])
    // `?email=` with nothing after it filters nothing (GET /_sandbox/inbox?email=).
    expect(await inbox.list({ email: '' })).toEqual(all)
  })

  it("reads only the recipient's messages when listing by e-mail, however full it is", async () => {
    let reads = 0
    const counted = message('me@example.com')
    const tracer = (m: InboxMessage) =>
      new Proxy(m, {
        get(target, key, receiver) {
          reads++
          return Reflect.get(target, key, receiver)
        },
      })
    const inbox = await inboxOf(5000)
    for (let i = 0; i < 6000; i++) await inbox.add(tracer(message(`other${i}@example.com`)))
    await inbox.add(tracer(counted))
    reads = 0
    // A login's read: the newest code and whether there are more.
    const found = await inbox.list({ email: 'me@example.com', limit: 2 })
    // Reading the whole inbox would touch each of its 5,000 messages.
    expect(reads).toBeLessThan(20)
    expect(found).toEqual([counted])
    expect(await inbox.size()).toBe(5000)
  })

  it('forgets one partner and keeps the rest listable by recipient', async () => {
    const inbox = await inboxOf(10)
    await inbox.add(message('a@example.com'))
    await inbox.add(message('a@example.com', { partner_id: 'ptr_b' }))
    await inbox.add(message('b@example.com', { partner_id: 'ptr_b' }))
    await inbox.removePartner('ptr_b')
    expect(await inbox.size()).toBe(1)
    expect((await inbox.list({ email: 'a@example.com' })).map((m) => m.partner_id)).toEqual([
      'ptr_a',
    ])
    expect(await inbox.list({ email: 'b@example.com' })).toEqual([])
    await inbox.clear()
    expect(await inbox.list()).toEqual([])
  })
})
