import type { SandboxConfig } from '../config.js'
import type { CredentialCache } from '../domain/credential-cache.js'
import type { Logger } from '../logger.js'
import { DEFAULT_PARTNER } from '../store/default-credentials.js'
import { defineIndexes } from '../store/indexes.js'
import {
  type CollectionsData,
  ephemeralCollections,
  keptOnReplace,
  mergedOnReplace,
  type PartnerRow,
} from '../store/records.js'
import { Store } from '../store/store.js'
import { databaseError } from './database-error.js'
import { MemoryState } from './memory-state.js'
import { PostgresState } from './postgres/postgres-state.js'
import type { State } from './seam.js'

export interface OpenedState {
  state: State
  /** The memory engine's store (its own tests read it); none on PostgreSQL. */
  store: Store | undefined
  /** Whether the bundled default partner exists (the banner and defaultCredentials say so). */
  defaultPartnerPresent: () => boolean
  /**
   * Reads that again where another process may change it (PostgreSQL): the sweeper's refresh
   * calls it at every run, each second.
   */
  recheckDefaultPartner: () => Promise<void>
}

/**
 * Opens the engine the configuration names: PostgreSQL with `database`, else memory (with the
 * `data` file when given). Either way the default partner's scrypt check starts in the
 * background: its secret is public, so the first request need not wait for it.
 */
export async function openState(
  config: Pick<SandboxConfig, 'data' | 'database' | 'fsync'>,
  parts: {
    seed: () => CollectionsData
    now: () => string
    logger: Logger
    credentials: CredentialCache
  },
): Promise<OpenedState> {
  if (config.database) {
    const url = config.database
    // Unreachable, refused, or newer than this build: one line that says so, not a stack.
    const state = await PostgresState.open({
      url,
      seed: parts.seed,
      now: parts.now,
      onWarning: parts.logger.warn,
    }).catch((error: unknown) => {
      throw databaseError(error, url)
    })
    const find = () => state.lookupOne('partners_by_api_key', DEFAULT_PARTNER.api_key)
    const partner = await find()
    primeDefaultPartner(parts.credentials, partner)
    // Read again after every replace, and whenever recheckDefaultPartner is called.
    let present = partner !== undefined
    const recheck = () =>
      find().then(
        (row) => {
          present = row !== undefined
        },
        () => {},
      )
    state.onReplace(recheck)
    return {
      state,
      store: undefined,
      defaultPartnerPresent: () => present,
      recheckDefaultPartner: recheck,
    }
  }
  const store = await Store.open({
    file: config.data,
    seed: parts.seed,
    fsync: config.fsync,
    now: parts.now,
    onWarning: parts.logger.warn,
    ephemeral: ephemeralCollections,
    keepOnReplace: keptOnReplace,
    mergeOnReplace: mergedOnReplace,
    // From a data file, the default partner's scrypt check runs while the users are read.
    onCollectionRead: (name, rows) => {
      if (name !== 'partners') return
      for (const id in rows) primeDefaultPartner(parts.credentials, rows[id] as PartnerRow)
    },
  })
  defineIndexes(store)
  // Seeded from fixtures (or already primed while reading: the check is shared, not rerun).
  primeDefaultPartner(
    parts.credentials,
    store.lookup('partners', 'partners_by_api_key', DEFAULT_PARTNER.api_key)[0],
  )
  return {
    state: new MemoryState(store),
    store,
    defaultPartnerPresent: () =>
      store.lookupOne('partners', 'partners_by_api_key', DEFAULT_PARTNER.api_key) !== undefined,
    recheckDefaultPartner: () => Promise.resolve(),
  }
}

/**
 * The bundled default partner's secret is public (README, banner), so its scrypt check can
 * run in the background at start-up instead of inside the first request. Any other row (or
 * none) is left alone.
 */
function primeDefaultPartner(credentials: CredentialCache, partner: PartnerRow | undefined): void {
  if (partner?.api_key !== DEFAULT_PARTNER.api_key) return
  credentials
    .verify(partner.api_key, DEFAULT_PARTNER.api_secret, partner.api_secret_hash)
    .catch(() => {})
}
