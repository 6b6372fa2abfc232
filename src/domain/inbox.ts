/**
 * The sandbox inbox: every message the sandbox "sends" (login codes, password-reset codes)
 * lands here for tests and people to read (`GET /_sandbox/inbox`). It is held in memory on
 * purpose: a code is a secret, so only its HMAC reaches the data file.
 */

export interface InboxMessage {
  id: string
  partner_id: string
  user_id: string
  to: string
  channel: 'email'
  kind: 'login_code' | 'password_reset_code'
  subject: string
  body: string
  code: string
  created_at: string
  expires_at: string
}

export interface InboxFilter {
  email?: string
  partner_id?: string
  kind?: InboxMessage['kind']
  limit?: number
}

/**
 * At most `capacity` messages at any time, in a ring (the oldest is overwritten by the
 * newest): a dropped message is let go at once, not kept until a later compaction. Every login
 * adds a message and every read of the inbox filters by e-mail, so both stay independent of
 * how many messages are held: messages are also listed per recipient, so a read by e-mail
 * walks only that address's messages; a scan of the whole inbox per login made each login
 * cost more as the inbox filled (the soak test, test/soak/).
 */
export class Inbox {
  private ring: (InboxMessage | undefined)[] = []
  /** Where the next message goes (the oldest, once the ring is full). */
  private next = 0
  private count = 0
  private readonly byEmail = new Map<string, InboxMessage[]>()

  constructor(private readonly capacity = 5000) {}

  get size(): number {
    return this.count
  }

  /** Distinct messages the inbox holds a reference to, in the ring and the per-recipient lists. */
  held(): number {
    const seen = new Set<InboxMessage>()
    for (const m of this.ring) if (m) seen.add(m)
    for (const mine of this.byEmail.values()) for (const m of mine) seen.add(m)
    return seen.size
  }

  add(message: InboxMessage): void {
    if (this.count === this.capacity) this.dropOldest()
    this.ring[this.next] = message
    this.next = (this.next + 1) % this.capacity
    this.count++
    const mine = this.byEmail.get(message.to)
    if (mine) mine.push(message)
    else this.byEmail.set(message.to, [message])
  }

  private dropOldest(): void {
    const at = (this.next - this.count + this.capacity) % this.capacity
    const oldest = this.ring[at] as InboxMessage
    this.ring[at] = undefined
    this.count--
    // The oldest message overall is the oldest of its recipient's too.
    const mine = this.byEmail.get(oldest.to)
    mine?.shift()
    if (mine?.length === 0) this.byEmail.delete(oldest.to)
  }

  /** Newest first. */
  list(filter: InboxFilter = {}): InboxMessage[] {
    const limit = filter.limit ?? 50
    // An empty e-mail filters nothing, as before the per-recipient lists.
    const email = filter.email?.toLowerCase() || undefined
    const out: InboxMessage[] = []
    const take = (m: InboxMessage) => {
      if (filter.partner_id && m.partner_id !== filter.partner_id) return
      if (filter.kind && m.kind !== filter.kind) return
      out.push(m)
    }
    if (email !== undefined) {
      const mine = this.byEmail.get(email) ?? []
      for (let i = mine.length - 1; i >= 0 && out.length < limit; i--) take(mine[i] as InboxMessage)
      return out
    }
    for (let n = 1; n <= this.count && out.length < limit; n++)
      take(this.ring[(this.next - n + this.capacity) % this.capacity] as InboxMessage)
    return out
  }

  /** Forgets one partner's messages (its reset, delete or restore). */
  removePartner(partnerId: string): void {
    const kept = this.list({ limit: this.count })
      .reverse()
      .filter((m) => m.partner_id !== partnerId)
    this.clear()
    for (const m of kept) this.add(m)
  }

  clear(): void {
    this.ring = []
    this.next = 0
    this.count = 0
    this.byEmail.clear()
  }
}
