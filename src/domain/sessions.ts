import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import type { SandboxConfig } from '../config.js'
import { ApiError } from '../errors.js'
import type { Random } from '../random.js'
import type { State, StateTx } from '../state/seam.js'
import type { PartnerRow, SessionRow, UserRow } from '../store/records.js'
import type { PartnerClocks } from './partner-clocks.js'
import { existingSigningKey, jwtKey, signingKey } from './signing-key.js'

/**
 * Session tokens: HS256 JWTs (jose) with `sub` (user), `pid` (partner), `sid` (the stored
 * session), `exp`. The signature proves the token is ours; the stored session decides
 * whether it still counts (logout, password change, "expire now" all act on the row).
 */

const ISSUER = 'partner-sandbox'

/** What the session functions use of the kernel. */
export interface SessionsContext {
  random: Random
  clocks: PartnerClocks
  config: Pick<SandboxConfig, 'sessionTtl'>
}

/** A new session row for `user`, written in `tx`, and the key its token is to be signed with. */
export async function openSession(ctx: SessionsContext, tx: StateTx, user: UserRow) {
  const now = ctx.clocks.forPartner(user.partner_id).now()
  const expiresAt = now + ctx.config.sessionTtl
  const session: SessionRow = {
    id: ctx.random.id('ses'),
    partner_id: user.partner_id,
    user_id: user.id,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(expiresAt).toISOString(),
    revoked_at: null,
    revoked_reason: null,
  }
  const key = await signingKey(ctx, tx)
  tx.put('sessions', session)
  return { session, key, issuedAt: now, expiresAt }
}

/**
 * The token of a session `openSession` wrote: signed once its transaction committed (signing
 * awaits the crypto engine, which a transaction does not wait for).
 */
export async function signSession(
  verifier: Pick<SessionVerifier, 'remember'>,
  opened: Awaited<ReturnType<typeof openSession>>,
): Promise<string> {
  const { session, key, issuedAt, expiresAt } = opened
  const token = await new SignJWT({ pid: session.partner_id, sid: session.id })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(session.user_id)
    .setIssuer(ISSUER)
    .setIssuedAt(Math.floor(issuedAt / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(await jwtKey(key))
  // Signed here a moment ago: its first use needs no HMAC check (the stored session, read on
  // every request, still decides whether it counts).
  verifier.remember(token, { sub: session.user_id, pid: session.partner_id, sid: session.id })
  return token
}

interface Claims {
  sub: string
  pid: string
  sid: string
}

const unauthorized = (message: string) => new ApiError('unauthorized', message)

/** `Authorization: Bearer <token>`, the token captured. */
const BEARER = /^Bearer\s+(\S+)$/i

type Authenticated = { user: UserRow; session: SessionRow }

/** The reads readAhead started: a known token's claims, and its session's and user's rows. */
export interface ReadAhead {
  claims: Claims
  rows: Promise<[SessionRow | undefined, UserRow | undefined]>
}

/**
 * Verified signatures are remembered by token, so a request costs a map lookup instead of an
 * HMAC (a pure derivation: a token's claims never change); the stored session is still read
 * on every request.
 */
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

  constructor(private readonly s: { state: State; clocks: PartnerClocks }) {}

  /**
   * The session's and its user's rows are read on every call, whatever the token; `ahead`,
   * what readAhead started for this same header, is taken instead of reading them again.
   */
  authenticate(
    header: string | undefined,
    partner: PartnerRow,
    ahead?: ReadAhead,
  ): Promise<Authenticated> {
    if (!header)
      throw unauthorized(
        'Missing Authorization header: send Authorization: Bearer <sessionToken> from verify-otp.',
      )
    if (ahead !== undefined) return this.admit(ahead.claims, partner, ahead.rows)
    const known = this.knownClaims(header)
    if (known !== undefined) return this.admit(known, partner)
    const match = BEARER.exec(header)
    if (!match)
      throw unauthorized('Malformed Authorization header: expected "Bearer <sessionToken>".')
    return this.verify(match[1] as string, partner.id).then((claims) => {
      this.last = { header, claims }
      return this.admit(claims, partner)
    })
  }

  /**
   * Starts the reads `authenticate` makes for `header`, when its token was verified before:
   * started with the request's first reads (its partner's), they go with them, in one
   * statement on a database. Undefined for any other header (authenticate reads, or refuses,
   * in its turn). It reads only: the rows are checked against the request's partner, and
   * refused as ever, when authenticate takes them.
   */
  readAhead(header: string | undefined): ReadAhead | undefined {
    const claims = header === undefined ? undefined : this.knownClaims(header)
    if (claims === undefined) return undefined
    const rows = this.rowsOf(claims)
    // Nobody may take it (the partner's credentials refused first): a failed read is not news.
    rows.catch(() => {})
    return { claims, rows }
  }

  /**
   * The claims of a header whose token was verified before, else undefined. A token's claims
   * never change (the session row is checked on every request), so the header seen last needs
   * neither the regex nor hashing its ~300 characters again.
   */
  private knownClaims(header: string): Claims | undefined {
    if (this.last?.header === header) return this.last.claims
    const token = BEARER.exec(header)?.[1]
    const claims = token === undefined ? undefined : this.verified.get(token)
    if (claims !== undefined) this.last = { header, claims }
    return claims
  }

  /** A token this sandbox has just signed, with its claims. */
  remember(token: string, claims: Claims): void {
    if (this.verified.size >= 10_000) this.verified.clear()
    this.verified.set(token, claims)
  }

  /**
   * Reads the token's session and user rows (in this request: a logout, a password change or
   * a deactivation through any process counts at once) and checks them.
   */
  private async admit(
    claims: Claims,
    partner: PartnerRow,
    rows = this.rowsOf(claims),
  ): Promise<Authenticated> {
    const [session, user] = await rows
    return this.check(claims, partner, session, user)
  }

  /**
   * The rows of the partner the token was signed for (check then refuses a token of another
   * partner than the request's, saying so), both at once (one round trip on a database): the
   * token names the user it was signed for, and check refuses a session of another user.
   */
  private rowsOf(claims: Claims): Promise<[SessionRow | undefined, UserRow | undefined]> {
    const own = this.s.state.tenant(claims.pid)
    return Promise.all([own.get('sessions', claims.sid), own.get('users', claims.sub)])
  }

  private check(
    claims: Claims,
    partner: PartnerRow,
    session: SessionRow | undefined,
    user: UserRow | undefined,
  ): Authenticated {
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
    if (this.expiresAt(session) <= this.s.clocks.nowOf(partner.id))
      throw unauthorized('This session has expired. Log in again.')
    if (
      !user ||
      user.id !== claims.sub ||
      session.user_id !== user.id ||
      user.partner_id !== partner.id
    )
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
      const raw = await existingSigningKey(this.s.state)
      // No key yet: nothing was ever signed, so no token is ours.
      if (!raw) throw new Error('no signing key')
      const { payload } = await jwtVerify(token, await jwtKey(raw), {
        algorithms: ['HS256'],
        issuer: ISSUER,
        currentDate: this.s.clocks.forPartner(partnerId).date(),
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
export async function revokeSessions(
  ctx: Pick<SessionsContext, 'clocks'>,
  tx: StateTx,
  userId: string,
  reason: string,
  keep?: string,
): Promise<number> {
  const live = (await tx.lookup('sessions_by_user', userId)).filter(
    (s) =>
      !s.revoked_at && s.id !== keep && Date.parse(s.expires_at) > ctx.clocks.nowOf(s.partner_id),
  )
  for (const s of live) {
    const now = ctx.clocks.forPartner(s.partner_id).iso()
    tx.put('sessions', { ...s, revoked_at: now, revoked_reason: reason })
  }
  return live.length
}

/** Makes a user's live sessions expire now (control plane); returns how many there were. */
export async function expireSessions(
  ctx: { clocks: Pick<PartnerClocks, 'sandbox'> },
  tx: StateTx,
  userId: string,
): Promise<number> {
  if (!(await tx.get('users', userId)))
    throw new ApiError('not_found', `No user with id ${userId}.`)
  const now = ctx.clocks.sandbox.now()
  const live = (await tx.lookup('sessions_by_user', userId)).filter(
    (s) => !s.revoked_at && Date.parse(s.expires_at) > now,
  )
  const at = new Date(now).toISOString()
  for (const s of live) tx.put('sessions', { ...s, expires_at: at })
  return live.length
}

/** Logs a session out: its token stops working on the next request. */
export async function endSession(
  ctx: Pick<SessionsContext, 'clocks'>,
  tx: StateTx,
  session: SessionRow,
): Promise<void> {
  const current = (await tx.get('sessions', session.id)) ?? session
  tx.put('sessions', {
    ...current,
    revoked_at: ctx.clocks.forPartner(session.partner_id).iso(),
    revoked_reason: 'logged_out',
  })
}
