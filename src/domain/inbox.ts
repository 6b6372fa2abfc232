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

export class Inbox {
  private messages: InboxMessage[] = []

  constructor(private readonly capacity = 5000) {}

  add(message: InboxMessage): void {
    this.messages.push(message)
    if (this.messages.length > this.capacity)
      this.messages.splice(0, this.messages.length - this.capacity)
  }

  /** Newest first. */
  list(filter: InboxFilter = {}): InboxMessage[] {
    const email = filter.email?.toLowerCase()
    const out: InboxMessage[] = []
    for (let i = this.messages.length - 1; i >= 0 && out.length < (filter.limit ?? 50); i--) {
      const m = this.messages[i] as InboxMessage
      if (email && m.to !== email) continue
      if (filter.partner_id && m.partner_id !== filter.partner_id) continue
      if (filter.kind && m.kind !== filter.kind) continue
      out.push(m)
    }
    return out
  }

  /** Forgets one partner's messages (its reset, delete or restore). */
  removePartner(partnerId: string): void {
    this.messages = this.messages.filter((m) => m.partner_id !== partnerId)
  }

  clear(): void {
    this.messages = []
  }
}
