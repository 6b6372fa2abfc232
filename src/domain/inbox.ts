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
 * Held oldest first, at most `capacity` (the oldest go first). Every login adds a message and
 * every read of the inbox filters by e-mail, so both stay independent of how many messages are
 * held: dropping the oldest advances a start offset (the array is compacted once per
 * `capacity` drops), and messages are also listed per recipient, so a read by e-mail walks
 * only that address's messages; a scan of the whole inbox per login made each login cost
 * more as the inbox filled (the soak test, test/soak/).
 */
export class Inbox {
  private messages: InboxMessage[] = []
  private start = 0
  private readonly byEmail = new Map<string, InboxMessage[]>()

  constructor(private readonly capacity = 5000) {}

  get size(): number {
    return this.messages.length - this.start
  }

  add(message: InboxMessage): void {
    this.messages.push(message)
    const mine = this.byEmail.get(message.to)
    if (mine) mine.push(message)
    else this.byEmail.set(message.to, [message])
    while (this.size > this.capacity) this.dropOldest()
  }

  private dropOldest(): void {
    const oldest = this.messages[this.start] as InboxMessage
    this.start++
    if (this.start >= this.capacity) {
      this.messages = this.messages.slice(this.start)
      this.start = 0
    }
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
    const from = email === undefined ? this.messages : (this.byEmail.get(email) ?? [])
    const stop = email === undefined ? this.start : 0
    const out: InboxMessage[] = []
    for (let i = from.length - 1; i >= stop && out.length < limit; i--) {
      const m = from[i] as InboxMessage
      if (filter.partner_id && m.partner_id !== filter.partner_id) continue
      if (filter.kind && m.kind !== filter.kind) continue
      out.push(m)
    }
    return out
  }

  /** Forgets one partner's messages (its reset, delete or restore). */
  removePartner(partnerId: string): void {
    const kept = this.messages.slice(this.start).filter((m) => m.partner_id !== partnerId)
    this.clear()
    for (const m of kept) this.add(m)
  }

  clear(): void {
    this.messages = []
    this.start = 0
    this.byEmail.clear()
  }
}
