import type { Clock } from '../clock.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import type { Logger } from '../logger.js'
import type { WebhookPolicy } from '../scenarios/webhooks.js'
import { partnerOfEndpointKey } from '../state/indexes.js'
import type { State } from '../state/seam.js'
import type { DeliveryRow } from '../store/records.js'
import { Attempts } from './attempt.js'
import { type DeliveryCtx, policyOf } from './new-delivery.js'
import type { SelfTarget } from './self-target.js'

/** The schedule: deliveries still to attempt, by endpoint, in due order. */
const DUE = 'deliveries_due_by_endpoint'
const MAX_IN_FLIGHT = 256
/** A slow or dead endpoint can hold at most this many sockets; the rest go to others. */
const MAX_IN_FLIGHT_PER_ENDPOINT = 32
/**
 * A taken attempt's row falls due again this long after the attempt's timeout: should the
 * process making it die before recording it, another takes it then.
 */
const TAKE_MARGIN_MS = 15_000
/** How often (real time) the rows are looked at for due work while the clock runs. */
const POLL_MS = 500

/** An attempt taken from the rows: the delivery as it was, when it was due, its policy. */
interface Taken {
  row: DeliveryRow
  dueAt: number
  /** Its endpoint's key under DUE: its share of sockets is counted by it. */
  key: string
  policy: WebhookPolicy
}

export interface DispatcherOptions extends DeliveryCtx {
  state: State
  /** The sandbox clock: while it is frozen, nothing is polled for. */
  clock: Pick<Clock, 'state'>
  clocks: Pick<PartnerClocks, 'nowOf' | 'isRunning'>
  logger: Logger
  /** How long after its timeout a taken attempt falls due again (TAKE_MARGIN_MS). */
  takeMarginMs?: number
  /** How often the rows are polled while the clock runs (POLL_MS). */
  pollMs?: number
  /** The sandbox's own address: a delivery never goes there but to its sink. */
  self: Pick<SelfTarget, 'reason' | 'lookupGuard'>
}

/**
 * Delivers events to webhook endpoints: an event fans out to every enabled endpoint of its
 * partner that wants it (fan-out.ts, in the event's own transaction), each delivery is POSTed
 * signed, and failures are retried on the 4-attempt schedule of the partner's scenario.
 *
 * The rows are the only schedule, shared by every process on the state: an attempt is taken
 * in a transaction of its own (takeDue: row locks, rows another process holds skipped), in
 * due order on the partner's clock, and the take moves the row's due time past the attempt's
 * timeout, so an attempt whose process died is taken again then. The POST goes out of any
 * transaction, and its result is recorded in a transaction of its own; an attempt recorded is
 * never made again. Delivery is at least once: the receiver tells copies apart by the event id.
 *
 * Nothing is kept that another process could change: the dispatcher finds due rows by polling
 * the endpoints that have any (while the clock runs), and this process's own commits and clock
 * moves wake it at once. Advancing the clock (or a flush) runs everything that falls due, in
 * order, an attempt's successor scheduled from the attempt's due time, so one advance walks the
 * whole schedule. Advancing one partner's clock runs and waits for only that partner's work.
 */
export class Dispatcher {
  /** Attempts under way in this process, with their partner. */
  private readonly inFlight = new Map<string, string>()
  /** Attempts under way in this process, by endpoint key. */
  private readonly perEndpoint = new Map<string, number>()
  private readonly completions = new Set<() => void>()
  /** Told of every recorded attempt (the composition root gives retention's per-partner cap). */
  private readonly attemptListeners = new Set<(delivery: DeliveryRow) => void>()
  /** Passes over the rows run one at a time, in the order asked for. */
  private chain: Promise<unknown> = Promise.resolve()
  private wakeQueued = false
  private readonly poll: NodeJS.Timeout
  /** A wake at a retry's due time, when it comes before the next poll. */
  private soon?: { at: number; timer: NodeJS.Timeout }
  private readonly attempts: Attempts
  private stopped = false

  constructor(private readonly o: DispatcherOptions) {
    this.attempts = new Attempts(o)
    o.state.onReplace(() => this.wake())
    this.poll = setInterval(() => {
      if (!o.clock.state().frozen) this.wake()
    }, o.pollMs ?? POLL_MS)
    this.poll.unref()
    // Deliveries pending in a data file or a database resume on their own: the overdue ones
    // at once, the others as they fall due.
    this.wake()
  }

  /**
   * A hint, never needed for correctness: a delivery this process committed (a new one, or
   * an attempt's record) that is due wakes the dispatcher at once, and one due before the
   * next poll sets a wake at its time.
   */
  scheduled(d: DeliveryRow): void {
    // Taken rows are under way: their record says what comes next.
    if (!d.next_attempt_at || d.attempt_due_at) return
    const wait = Date.parse(d.next_attempt_at) - this.o.clocks.nowOf(d.partner_id)
    if (wait <= 0) this.wake()
    else if (wait < (this.o.pollMs ?? POLL_MS) && this.o.clocks.isRunning(d.partner_id))
      this.wakeIn(wait)
  }

  private wakeIn(wait: number): void {
    const at = Date.now() + wait
    if (this.soon && this.soon.at <= at) return
    clearTimeout(this.soon?.timer)
    const timer = setTimeout(() => {
      this.soon = undefined
      this.wake()
    }, wait)
    timer.unref()
    this.soon = { at, timer }
  }

  /** One pass over every endpoint with work, after the passes already asked for. */
  private wake(): void {
    if (this.wakeQueued || this.stopped) return
    this.wakeQueued = true
    this.chain = this.chain
      .then(() => {
        this.wakeQueued = false
        return this.pass()
      })
      .catch((error: unknown) => this.warn('a pass over the due webhook deliveries', error))
  }

  /** A pass over the endpoints with work (of `partnerId` only, when given), in turn. */
  private runPass(partnerId?: string): Promise<{ started: number; waiting: boolean }> {
    const run = this.chain.then(() => this.pass(partnerId))
    this.chain = run.catch(() => {})
    return run
  }

  /**
   * Takes and starts what is due, within the limits on sockets. `waiting`: an endpoint may
   * have due work that waits for sockets attempts of other partners hold.
   */
  private async pass(partnerId?: string): Promise<{ started: number; waiting: boolean }> {
    let started = 0
    let waiting = false
    if (this.stopped) return { started, waiting }
    let keys: string[]
    try {
      keys = await this.o.state.keys(DUE)
    } catch (error) {
      this.warn('looking for due webhook deliveries', error)
      return { started, waiting }
    }
    for (const key of keys) {
      const partner = partnerOfEndpointKey(key)
      if (this.stopped) break
      if (partnerId !== undefined && partner !== partnerId) continue
      if (this.inFlight.size >= MAX_IN_FLIGHT) {
        waiting = true
        break
      }
      // An endpoint with its share under way: the end of one of them looks again.
      const free = Math.min(
        MAX_IN_FLIGHT - this.inFlight.size,
        MAX_IN_FLIGHT_PER_ENDPOINT - (this.perEndpoint.get(key) ?? 0),
      )
      if (free <= 0) continue
      try {
        if (!(await this.headIsDue(key, partner))) continue
        for (const taken of await this.take(key, partner, free)) {
          this.start(taken)
          started++
        }
      } catch (error) {
        this.warn(`taking the due webhook deliveries of ${key}`, error)
      }
    }
    return { started, waiting }
  }

  /** Whether the endpoint's earliest delivery is due: a read, no transaction, when it is not. */
  private async headIsDue(key: string, partnerId: string): Promise<boolean> {
    const [head] = await this.o.state.range(DUE, key, { limit: 1 })
    if (!head?.next_attempt_at) return false
    return Date.parse(head.next_attempt_at) <= this.o.clocks.nowOf(partnerId)
  }

  /**
   * Takes at most `free` due deliveries of an endpoint in one transaction, earliest first, and
   * records each one's start: due again once its attempt's timeout and a margin have passed.
   * Rows this process is attempting already (due again after a clock advance) are left.
   */
  private async take(key: string, partnerId: string, free: number): Promise<Taken[]> {
    const now = this.o.clocks.nowOf(partnerId)
    const mine = this.perEndpoint.get(key) ?? 0
    return this.o.state.transaction(async (tx) => {
      const due = await tx.takeDue(DUE, key, new Date(now).toISOString(), free + mine)
      const rows = due.filter((d) => !this.inFlight.has(d.id)).slice(0, free)
      if (rows.length === 0) return []
      const policy = await policyOf(this.o, tx, partnerId)
      const margin = this.o.takeMarginMs ?? TAKE_MARGIN_MS
      const again = new Date(now + policy.timeoutMs + margin).toISOString()
      return rows.map((row) => {
        const at = row.next_attempt_at as string
        tx.put('webhook_deliveries', { ...row, next_attempt_at: again, attempt_due_at: at })
        return { row, dueAt: Date.parse(at), key, policy }
      })
    })
  }

  private start(taken: Taken): void {
    const { row, key } = taken
    this.inFlight.set(row.id, row.partner_id)
    this.perEndpoint.set(key, (this.perEndpoint.get(key) ?? 0) + 1)
    void this.attempt(taken).then((recorded) => {
      this.inFlight.delete(row.id)
      const left = (this.perEndpoint.get(key) ?? 1) - 1
      if (left > 0) this.perEndpoint.set(key, left)
      else this.perEndpoint.delete(key)
      for (const done of this.completions) done()
      if (recorded) {
        for (const listener of this.attemptListeners) listener(recorded)
        this.scheduled(recorded)
      }
      // Its socket is free, and its retry may be due (a clock advanced past it).
      this.wake()
    })
  }

  /** One attempt; the row as recorded (undefined when nothing was). Never throws. */
  private async attempt({ row, dueAt, policy }: Taken): Promise<DeliveryRow | undefined> {
    try {
      return await this.attempts.make(row, dueAt, policy)
    } catch (error) {
      // Its result is unknown (the transaction recording it failed, say). The row stays taken:
      // it falls due again once the attempt's timeout and margin have passed, as a retry does,
      // and that attempt goes by the row as it then stands.
      this.o.logger.error(
        `webhook delivery ${row.id} failed unexpectedly, tried again once it falls due: ${(error as Error).stack}`,
      )
      return undefined
    }
  }

  /**
   * Runs everything due now, including retries that fall due on the way, and resolves when
   * nothing due is left: of `partnerId` only when given (its clock moved), else of everyone.
   * Used by clock advances and the flush route. Answers how many attempts it started.
   */
  async runDue(partnerId?: string): Promise<number> {
    let attempted = 0
    while (!this.stopped) {
      const { started, waiting } = await this.runPass(partnerId)
      attempted += started
      if (!this.busy(partnerId) && !waiting) {
        // Done, unless what it started has ended already (its retry may be due), or an attempt
        // that ended while this pass ran queued a pass of its own (its retry may be due, and
        // that pass would start it after this returned): look again.
        if (started === 0 && !this.wakeQueued) return attempted
        continue
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          this.completions.delete(done)
          resolve()
        }
        this.completions.add(done)
      })
    }
    return attempted
  }

  private busy(partnerId?: string): boolean {
    if (partnerId === undefined) return this.inFlight.size > 0
    for (const p of this.inFlight.values()) if (p === partnerId) return true
    return false
  }

  private warn(what: string, error: unknown): void {
    if (this.stopped) return
    this.o.logger.warn(`${what} failed (${(error as Error).message}); looked at again soon`)
  }

  /** Calls `listener` after every attempt with the delivery as recorded; returns unsubscribe. */
  onAttempt(listener: (delivery: DeliveryRow) => void): () => void {
    this.attemptListeners.add(listener)
    return () => this.attemptListeners.delete(listener)
  }

  /**
   * Starts no attempt any more; resolves once the pass and the attempts under way have ended
   * (each within its timeout), their results recorded. The state is closed after this: an
   * attempt recording into a closed database would fail and log an error for a clean stop.
   */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.poll)
    clearTimeout(this.soon?.timer)
    await this.chain.catch(() => {})
    while (this.inFlight.size > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.completions.delete(done)
          resolve()
        }
        this.completions.add(done)
      })
    }
  }
}
