import type { SandboxConfig } from '../config.js'
import { checkCode, sendCode } from '../domain/codes.js'
import type { EventBus } from '../domain/events.js'
import type { Inbox } from '../domain/inbox.js'
import {
  assertCanLogIn,
  checkPasswordChange,
  exchangeResetCode,
  loginCodeError,
  passwordMatches,
  resetCodeError,
  resetTokenError,
  resetWithToken,
  storeChangedPassword,
} from '../domain/login.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { fileContent, readPicture, storedFile, usePicture } from '../domain/profile-pictures.js'
import { hashSecret, PASSWORD_COST } from '../domain/secret-hash.js'
import {
  endSession,
  expireSessions,
  openSession,
  type SessionVerifier,
  signSession,
} from '../domain/sessions.js'
import {
  checkRegistration,
  findUserByEmail,
  type ProfilePatch,
  type Registration,
  registerUser,
  updateProfile,
} from '../domain/users.js'
import type { Random } from '../random.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { State, TenantScope } from '../state/seam.js'
import type { FileRow, PartnerRow, SessionRow, UserRow } from '../store/records.js'

export interface AccountsParts {
  state: State
  random: Random
  clocks: PartnerClocks
  events: EventBus
  scenarios: ScenarioRegistry
  inbox: Inbox
  sessions: SessionVerifier
  config: Pick<SandboxConfig, 'sessionTtl' | 'pictureLimit'>
  baseUrl(): string
}

/**
 * End users of a partner: registration, the two-step login, sessions, passwords and their
 * reset, the profile and its picture. Scrypt, signing, and reading and encoding a picture run
 * before or after a method's one transaction, never inside it; a refused code is answered
 * after the attempt it counted is committed.
 */
/** A partner's request's scope (TenantScope): a partner row, or a user row of one. */
const own = (row: PartnerRow | UserRow): TenantScope => ({
  partner: 'partner_id' in row ? row.partner_id : row.id,
})

export class Accounts {
  constructor(private readonly s: AccountsParts) {}

  get pictureLimit(): number {
    return this.s.config.pictureLimit
  }

  async register(partnerId: string, input: Registration): Promise<UserRow> {
    await checkRegistration(this.s, this.s.state.tenant(partnerId), partnerId, input)
    const hash = await hashSecret(input.password, this.s.random, PASSWORD_COST)
    return this.s.state.transaction((tx) => registerUser(this.s, tx, partnerId, input, hash), {
      partner: partnerId,
    })
  }

  /** Step 1 of login: right email and password → a one-time code is sent. */
  async startLogin(partner: PartnerRow, email: string, password: string) {
    const found = await findUserByEmail(this.s.state.tenant(partner.id), partner.id, email)
    const user = assertCanLogIn(found, await passwordMatches(this.s.random, found, password))
    const code = await this.s.state.transaction(
      (tx) => sendCode(this.s, tx, user, 'login'),
      own(partner),
    )
    await this.s.inbox.trimmed()
    return { user, code }
  }

  /** Step 2 of login: the code for a session token. */
  async verifyLogin(partner: PartnerRow, email: string, code: string) {
    const { result, user, opened } = await this.s.state.transaction(async (tx) => {
      const user = await findUserByEmail(tx, partner.id, email)
      const result = await checkCode(this.s, tx, user, 'login', code)
      const opened = result.ok && user ? await openSession(this.s, tx, user) : undefined
      return { result, user, opened }
    }, own(partner))
    if (!opened || !user) throw loginCodeError(result)
    const token = await signSession(this.s.sessions, opened)
    return { user, token, expiresAt: opened.expiresAt }
  }

  logout(session: SessionRow): Promise<void> {
    return this.s.state.transaction((tx) => endSession(this.s, tx, session), {
      partner: session.partner_id,
    })
  }

  /** Returns how many other sessions ended. */
  async changePassword(user: UserRow, sessionId: string, current: string, next: string) {
    await checkPasswordChange(user, current, next)
    const hash = await hashSecret(next, this.s.random, PASSWORD_COST)
    return this.s.state.transaction(
      (tx) => storeChangedPassword(this.s, tx, user, sessionId, hash),
      own(user),
    )
  }

  /** Sends a reset code when the email is an active user's; answers nothing either way. */
  async requestPasswordReset(partner: PartnerRow, email: string): Promise<void> {
    await this.s.state.transaction(async (tx) => {
      const user = await findUserByEmail(tx, partner.id, email)
      if (user?.is_active) await sendCode(this.s, tx, user, 'password_reset')
    }, own(partner))
    await this.s.inbox.trimmed()
  }

  /** The reset code for a reset token. */
  async verifyPasswordReset(partner: PartnerRow, email: string, code: string) {
    const { result, token } = await this.s.state.transaction(
      (tx) => exchangeResetCode(this.s, tx, partner.id, email, code),
      own(partner),
    )
    if (!token) throw resetCodeError(result)
    return token
  }

  /** Returns how many sessions ended. */
  async resetPassword(partner: PartnerRow, email: string, resetToken: string, password: string) {
    const hash = await hashSecret(password, this.s.random, PASSWORD_COST)
    const revoked = await this.s.state.transaction(
      (tx) => resetWithToken(this.s, tx, partner.id, email, resetToken, hash),
      own(partner),
    )
    if (revoked === undefined) throw resetTokenError()
    return revoked
  }

  updateProfile(user: UserRow, patch: ProfilePatch): Promise<UserRow> {
    return this.s.state.transaction((tx) => updateProfile(this.s, tx, user, patch), own(user))
  }

  /** Stores the picture, its bytes with its row, and points the user at it. */
  async setProfilePicture(user: UserRow, upload: unknown): Promise<UserRow> {
    const { bytes, contentType } = await readPicture(this.s.config.pictureLimit, upload)
    const file: FileRow = {
      id: this.s.random.id('file'),
      partner_id: user.partner_id,
      user_id: user.id,
      purpose: 'profile_picture',
      content_type: contentType,
      size: bytes.length,
      created_at: this.s.clocks.forPartner(user.partner_id).iso(),
    }
    const content = fileContent(file, bytes)
    return this.s.state.transaction((tx) => usePicture(this.s, tx, user, file, content), own(user))
  }

  /** An uploaded file and its bytes, when both are there. */
  file(id: string): Promise<{ row: FileRow; bytes: Buffer } | undefined> {
    return storedFile(this.s.state, id)
  }

  /** Control plane: a user's live sessions expire now; returns how many. */
  expireSessions(userId: string): Promise<number> {
    return this.s.state.transaction((tx) => expireSessions(this.s, tx, userId))
  }
}
