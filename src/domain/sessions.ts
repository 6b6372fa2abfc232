import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import type { Deps } from '../deps.js'
import { ApiError } from '../errors.js'
import type { PartnerRow, SessionRow, UserRow } from '../store/records.js'
import type { Writer } from '../store/store.js'
import { jwtKey } from './signing-key.js'

/**
 * Session tokens: HS256 JWTs (jose) with `sub` (user), `pid` (partner), `sid` (the stored
 * session), `exp`. The signature proves the token is ours; the stored session decides
 * whether it still counts (logout, password change, "expire now" all act on the row).
 */

const ISSUER = 'partner-sandbox'

export async function createSession(deps: Deps, user: UserRow, writer?: Writer) {
  const now = deps.clocks.forPartner(user.partner_id).now()
  const expiresAt = now + deps.config.sessionTtl
  const session: SessionRow = {
    id: deps.random.id('ses'),
    partner_id: user.partner_id,
    user_id: user.id,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(expiresAt).toISOString(),
    revoked_at: null,
    revoked_reason: null,
  }
  const token = await new SignJWT({ pid: user.partner_id, sid: session.id })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer(ISSUER)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(await jwtKey(deps))
  if (writer) writer.put('sessions', session)
  else deps.store.put('sessions', session)
  // Signed here a moment ago: its first use needs no HMAC check (the stored session, read on
  // every request, still decides whether it counts).
  deps.sessions.remember(token, { sub: user.id, pid: user.partner_id, sid: session.id })
  return { session, token, expiresAt }
}

interface Claims {
  sub: string
  pid: string
  sid: string
}

const unauthorized = (message: string) => new ApiError('unauthorized', message)

/**
 * Verified signatures are remembered by token, so a request costs a map lookup instead of an
 * HMAC; the stored session is still read on every request.
 */
type Authenticated = { user: UserRow; session: SessionRow }

export class SessionVerifier {
  private readonly verified = new Map<string, Claims>()
  /** The Authorization header last admitted from `verified` or a verification, and its claims. */
  private last: { header: string; claims: Claims } | undefined
  /**
   * Each session row's `expires_at` parsed once: Date.parse of an ISO text costs ~0.4 µs, a
   * noticeable part of an authenticated GET. Checked against the text itself, so a row
   * whose expiry changes (even in place) is parsed again; rows that go are collected.
   */
  private readonly expiries = new WeakMap<SessionRow, { text: string; ms: number }>()

  constructor(private readonly deps: Deps) {}

  /** Answers at once (no promise) for a token verified before: this runs on every user route. */
  authenticate(
    header: string | undefined,
    partner: PartnerRow,
  ): Authenticated | Promise<Authenticated> {
    if (!header)
      throw unauthorized(
        'Missing Authorization header: send Authorization: Bearer <sessionToken> from verify-otp.',
      )
    // A token's claims never change (the session row is checked on every request), so the
    // header seen last needs neither the regex nor hashing its ~300 characters again.
    const last = this.last
    if (last !== undefined && last.header === header) return this.admit(last.claims, partner)
    const match = /^Bearer\s+(\S+)$/i.exec(header)
    if (!match)
      throw unauthorized('Malformed Authorization header: expected "Bearer <sessionToken>".')
    const token = match[1] as string
    const cached = this.verified.get(token)
    if (cached) {
      this.last = { header, claims: cached }
      return this.admit(cached, partner)
    }
    return this.verify(token, partner.id).then((claims) => {
      this.last = { header, claims }
      return this.admit(claims, partner)
    })
  }

  /** A token this sandbox has just signed, with its claims. */
  remember(token: string, claims: Claims): void {
    if (this.verified.size >= 10_000) this.verified.clear()
    this.verified.set(token, claims)
  }

  private admit(claims: Claims, partner: PartnerRow): Authenticated {
    const session = this.deps.store.get('sessions', claims.sid)
    if (!session)
      throw unauthorized(
        'This session no longer exists (it ended over a day ago, or the sandbox was reset or restored). Log in again.',
      )
    if (claims.pid !== partner.id || session.partner_id !== partner.id) {
      throw unauthorized(
        'This session token belongs to another partner; use it with the credentials it was issued under.',
      )
    }
    if (session.revoked_at)
      throw unauthorized(`This session has ended (${session.revoked_reason}). Log in again.`)
    if (this.expiresAt(session) <= this.deps.clocks.nowOf(partner.id))
      throw unauthorized('This session has expired. Log in again.')
    const user = this.deps.store.get('users', session.user_id)
    if (!user || user.id !== claims.sub || user.partner_id !== partner.id)
      throw unauthorized('The session user no longer exists.')
    if (!user.is_active) throw unauthorized('This user is deactivated.')
    return { user, session }
  }

  private expiresAt(session: SessionRow): number {
    const known = this.expiries.get(session)
    if (known?.text === session.expires_at) return known.ms
    const ms = Date.parse(session.expires_at)
    this.expiries.set(session, { text: session.expires_at, ms })
    return ms
  }

  /** Checks the signature and `exp` on the clock of the partner presenting the token. */
  private async verify(token: string, partnerId: string): Promise<Claims> {
    try {
      const { payload } = await jwtVerify(token, await jwtKey(this.deps), {
        algorithms: ['HS256'],
        issuer: ISSUER,
        currentDate: this.deps.clocks.forPartner(partnerId).date(),
        requiredClaims: ['sub', 'exp'],
      })
      if (typeof payload.sid !== 'string' || typeof payload.pid !== 'string')
        throw unauthorized('Invalid session token.')
      const claims = { sub: payload.sub as string, pid: payload.pid, sid: payload.sid }
      this.remember(token, claims)
      return claims
    } catch (error) {
      if (error instanceof ApiError) throw error
      if (error instanceof joseErrors.JWTExpired)
        throw unauthorized('This session has expired. Log in again.')
      throw unauthorized(
        'Invalid session token: it is malformed, tampered with, or not signed by this sandbox.',
      )
    }
  }
}

/** Ends sessions of a user (all, or all but one); returns how many were still live. */
export function revokeSessions(
  deps: Deps,
  userId: string,
  reason: string,
  keep?: string,
  writer?: Writer,
): number {
  const live = deps.store
    .lookup('sessions', 'sessions_by_user', userId)
    .filter(
      (s) =>
        !s.revoked_at &&
        s.id !== keep &&
        Date.parse(s.expires_at) > deps.clocks.nowOf(s.partner_id),
    )
  const write = (w: Writer) => {
    for (const s of live) {
      const now = deps.clocks.forPartner(s.partner_id).iso()
      w.put('sessions', { ...s, revoked_at: now, revoked_reason: reason })
    }
  }
  if (writer) write(writer)
  else deps.store.batch(write)
  return live.length
}

/** Makes a user's live sessions expire now (control plane); returns how many there were. */
export function expireSessions(deps: Deps, userId: string): number {
  if (!deps.store.get('users', userId))
    throw new ApiError('not_found', `No user with id ${userId}.`)
  const now = deps.clock.now()
  const live = deps.store
    .lookup('sessions', 'sessions_by_user', userId)
    .filter((s) => !s.revoked_at && Date.parse(s.expires_at) > now)
  const at = new Date(now).toISOString()
  deps.store.batch((w) => {
    for (const s of live) w.put('sessions', { ...s, expires_at: at })
  })
  return live.length
}

/** Logs a session out: its token stops working on the next request. */
export function endSession(deps: Deps, session: SessionRow): void {
  deps.store.put('sessions', {
    ...session,
    revoked_at: deps.clocks.forPartner(session.partner_id).iso(),
    revoked_reason: 'logged_out',
  })
}
