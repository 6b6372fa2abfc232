import type { Deps } from '../deps.js'
import { ApiError, validationError } from '../errors.js'
import type { PartnerRow, UserRow } from '../store/records.js'
import { checkCode, endCodes, issueResetToken, sendCode } from './codes.js'
import { hashSecret, PASSWORD_COST, verifySecret } from './secret-hash.js'
import { createSession, revokeSessions } from './sessions.js'
import { findUserByEmail, publicUser } from './users.js'

/** Spent on an unknown email, so it takes as long as a wrong password (no user enumeration). */
let dummyHash: Promise<string> | undefined

async function passwordMatches(deps: Deps, user: UserRow | undefined, password: string) {
  if (!user) {
    dummyHash ??= hashSecret('not-a-real-password', deps.random, PASSWORD_COST)
    await verifySecret(password, await dummyHash)
    return false
  }
  return verifySecret(password, user.password_hash)
}

export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@')
  return `${local.slice(0, 1)}${'*'.repeat(Math.max(1, local.length - 1))}@${domain}`
}

/** Step 1 of login: right email and password → a one-time code is sent. */
export async function startLogin(deps: Deps, partner: PartnerRow, email: string, password: string) {
  const user = findUserByEmail(deps, partner.id, email)
  const ok = await passwordMatches(deps, user, password)
  if (!ok || !user) throw new ApiError('unauthorized', 'Invalid email or password.')
  if (!user.is_active) throw new ApiError('forbidden', 'This user is deactivated.')
  const code = sendCode(deps, user, 'login')
  return {
    message: `A one-time code was sent to ${maskEmail(user.email)}. It expires in 10 minutes.`,
    channel: 'email' as const,
    destination: maskEmail(user.email),
    expiresAt: Date.parse(code.expires_at),
  }
}

const codeFailure: Record<string, string> = {
  missing: 'Invalid or expired code. Request a new one with POST /partner/auth/login.',
  burnt:
    'Too many wrong attempts: this code no longer works. Request a new one with POST /partner/auth/login.',
}

/** Step 2 of login: the code for a session token. */
export async function verifyLogin(deps: Deps, partner: PartnerRow, email: string, code: string) {
  const user = findUserByEmail(deps, partner.id, email)
  const result = checkCode(deps, user, 'login', code)
  if (!result.ok || !user) {
    const message =
      result.ok === false && result.reason === 'wrong'
        ? `Invalid code. ${result.attemptsLeft} attempt(s) left before it stops working.`
        : codeFailure[result.ok ? 'missing' : result.reason]
    throw new ApiError('unauthorized', message)
  }
  const { token, expiresAt } = await createSession(deps, user)
  return { sessionToken: token, expiresAt, user: publicUser(deps, user) }
}

export async function changePassword(
  deps: Deps,
  user: UserRow,
  sessionId: string,
  current: string,
  next: string,
) {
  if (!(await verifySecret(current, user.password_hash)))
    throw validationError('current_password', 'is not correct')
  if (current === next)
    throw validationError('new_password', 'must differ from the current password')
  const password_hash = await hashSecret(next, deps.random, PASSWORD_COST)
  const fresh = deps.store.get('users', user.id) ?? user
  // Checked again after the awaits: a parallel change or reset may have replaced the password
  // that current_password was verified against (and ended this session).
  if (fresh.password_hash !== user.password_hash)
    throw validationError('current_password', 'is not correct')
  let revoked = 0
  deps.store.batch((w) => {
    w.put('users', {
      ...fresh,
      password_hash,
      updated_at: deps.clocks.forPartner(user.partner_id).iso(),
    })
    revoked = revokeSessions(deps, user.id, 'password_changed', sessionId, w)
    // Codes sent under the old password stop working with it.
    endCodes(deps, user.id, w)
  })
  return {
    message: 'Password changed. Every other session of this user was ended.',
    sessions_revoked: revoked,
  }
}

/** Always the same answer, whether or not the email is known. */
export function requestPasswordReset(deps: Deps, partner: PartnerRow, email: string) {
  const user = findUserByEmail(deps, partner.id, email)
  if (user?.is_active) sendCode(deps, user, 'password_reset')
  return { message: 'If an account exists for this email, a password reset code was sent to it.' }
}

export function verifyPasswordReset(deps: Deps, partner: PartnerRow, email: string, code: string) {
  const user = findUserByEmail(deps, partner.id, email)
  const result = checkCode(deps, user, 'password_reset', code)
  if (!result.ok || !user) {
    const message =
      result.ok === false && result.reason === 'wrong'
        ? `is not correct; ${result.attemptsLeft} attempt(s) left`
        : result.ok === false && result.reason === 'burnt'
          ? 'was tried too many times and no longer works; request a new one'
          : 'is invalid or expired; request a new one'
    throw validationError('code', message)
  }
  const { token, expiresAt } = issueResetToken(deps, user)
  return {
    reset_token: token,
    expiresAt,
    message:
      'Code verified. Send reset_token with the new password to /partner/auth/forgot-password/reset.',
  }
}

export async function resetPassword(
  deps: Deps,
  partner: PartnerRow,
  email: string,
  resetToken: string,
  password: string,
) {
  const user = findUserByEmail(deps, partner.id, email)
  const password_hash = await hashSecret(password, deps.random, PASSWORD_COST)
  let revoked = 0
  deps.store.batch((w) => {
    const result = checkCode(deps, user, 'reset_token', resetToken, w)
    if (!result.ok || !user) {
      throw validationError(
        'reset_token',
        'is invalid, expired or already used; verify a reset code again',
      )
    }
    const fresh = deps.store.get('users', user.id) ?? user
    w.put('users', {
      ...fresh,
      password_hash,
      updated_at: deps.clocks.forPartner(partner.id).iso(),
    })
    revoked = revokeSessions(deps, user.id, 'password_reset', undefined, w)
    endCodes(deps, user.id, w, result.row.id)
  })
  return {
    message: 'Password reset. Every session of this user was ended; log in with the new password.',
    sessions_revoked: revoked,
  }
}
