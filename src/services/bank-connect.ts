import {
  type BankConnectKernel,
  chosenAccount,
  connectedAccounts,
  enroll,
  newConnectSession,
  offeredAccounts,
  openConnectSession,
  removeBankAccount,
} from '../domain/bank-connect.js'
import type { EventBus } from '../domain/events.js'
import type { PartnerClocks } from '../domain/partner-clocks.js'
import { signingKey } from '../domain/signing-key.js'
import type { Random } from '../random.js'
import type { State } from '../state/seam.js'
import type { UserRow } from '../store/records.js'
import type { ConnectTokenRow } from '../store/records-money.js'

/**
 * External bank accounts: connect sessions (a single-use token and the hosted page's URL),
 * the public enrollment that turns the user's choice into a connected account, the list and
 * removal. Each method that writes is one transaction of the seam.
 */
export class BankConnect {
  private readonly state: State
  private readonly kernel: BankConnectKernel

  constructor(
    parts: {
      state: State
      clocks: PartnerClocks
      random: Random
      events: EventBus
    } & Pick<BankConnectKernel, 'baseUrl'>,
  ) {
    const { state, ...kernel } = parts
    this.state = state
    this.kernel = kernel
  }

  async createSession(user: UserRow) {
    return this.state.transaction(
      async (tx) => {
        const { row, session } = newConnectSession(
          this.kernel,
          user,
          await signingKey(this.kernel, tx),
        )
        tx.put('connect_tokens', row)
        return session
      },
      { partner: user.partner_id },
    )
  }

  /** The partner a hosted request belongs to, for the request journal. */
  partnerOf(partnerId: string) {
    return this.state.get('partners', partnerId)
  }

  /** The session a token opens, or a ConnectLinkError / PartnerUnavailableError saying why not. */
  openSession(token: string | undefined) {
    return openConnectSession(this.kernel, this.state, token)
  }

  /** The first name of the user a session connects for, which names the offered accounts. */
  private async holderOf(session: ConnectTokenRow) {
    return (await this.state.tenant(session.partner_id).get('users', session.user_id))?.first_name
  }

  /** The accounts the hosted page offers for `session`, named after its user. */
  async offered(session: ConnectTokenRow) {
    return offeredAccounts(session, await this.holderOf(session))
  }

  async enroll(token: string, institutionId: string, accountId: string) {
    // Checked, and the offered accounts made (faker), before the transaction; the token is
    // checked again inside it.
    const session = await this.openSession(token)
    const holder = await this.holderOf(session)
    const offered = await chosenAccount(session, holder, institutionId, accountId)
    return this.state.transaction((tx) => enroll(this.kernel, tx, token, offered))
  }

  accounts(user: UserRow) {
    return connectedAccounts(this.state.tenant(user.partner_id), user.id)
  }

  remove(user: UserRow, id: string) {
    return this.state.transaction((tx) => removeBankAccount(this.kernel, tx, user, id), {
      partner: user.partner_id,
    })
  }
}
