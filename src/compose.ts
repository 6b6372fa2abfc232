import { createClock } from './clock.js'
import type { SandboxConfig } from './config.js'
import { CredentialCache } from './domain/credential-cache.js'
import { EventBus } from './domain/events.js'
import { fundCard } from './domain/funding.js'
import { Inbox } from './domain/inbox.js'
import { PartnerClocks } from './domain/partner-clocks.js'
import { authorizePurchase, type MerchantInput } from './domain/purchases.js'
import { Retention } from './domain/retention.js'
import { SandboxClockRow } from './domain/sandbox-clock-row.js'
import { SessionVerifier } from './domain/sessions.js'
import { Sweeper } from './domain/sweeper.js'
import { readSandboxSettings } from './http/read-first.js'
import { hostForUrl, requestOrigins } from './http/request-origin.js'
import type { Logger } from './logger.js'
import { createRandom } from './random.js'
import { LoadedScenarios } from './scenarios/loaded-scenarios.js'
import { loadScenario, parseScenario } from './scenarios/loader.js'
import { ScenarioRegistry } from './scenarios/registry.js'
import { SandboxScenario } from './scenarios/sandbox-scenario.js'
import { Accounts } from './services/accounts.js'
import { BankConnect } from './services/bank-connect.js'
import { RequestJournal } from './services/journal.js'
import { Money } from './services/money.js'
import { Onboarding } from './services/onboarding.js'
import { Partners } from './services/partners.js'
import { Platform } from './services/platform.js'
import { Rules } from './services/rules.js'
import { Webhooks } from './services/webhooks.js'
import { openState } from './state/open-state.js'
import { fixtureSeed } from './store/fixture-seed.js'
import { defaultFixturesPath, loadFixtures } from './store/fixtures.js'
import type { DeliveryRow } from './store/records.js'
import { Dispatcher } from './webhooks/dispatcher.js'
import { fanOut } from './webhooks/fan-out.js'
import { SelfTarget } from './webhooks/self-target.js'
import { SinkRegistry } from './webhooks/sink.js'

/**
 * Tuning only the sandbox's own tests use: no option, flag or environment variable sets it,
 * so the real-time waits it shortens stay as they are everywhere else.
 */
export interface InternalOptions {
  /** How long after its timeout a taken webhook attempt falls due again (15 s). */
  takeMarginMs?: number
}

/**
 * The composition root: builds every piece of a sandbox once, in dependency order, each from
 * only what it uses (docs/architecture.md says why this order). Answers what was built, for
 * `createApp` to mount and for the sandbox's own tests; nothing below is handed this record.
 */
export async function compose(
  config: SandboxConfig,
  logger: Logger,
  internal: InternalOptions = {},
) {
  const random = createRandom(config.seed)
  const scenario =
    typeof config.scenario === 'string'
      ? loadScenario(config.scenario)
      : parseScenario(config.scenario, 'options.scenario')
  const clock = createClock({ start: scenario.clock?.start, frozen: scenario.clock?.frozen })
  const fixtures = await loadFixtures(config.fixtures ?? defaultFixturesPath, random, clock.iso())
  const credentials = new CredentialCache()
  const { state, store, defaultPartnerPresent, recheckDefaultPartner } = await openState(config, {
    seed: fixtureSeed(fixtures),
    now: clock.iso,
    logger,
    credentials,
  })

  const origins = requestOrigins(
    config.publicUrl,
    `http://${hostForUrl(config.host)}:${config.port}`,
    config.trustProxy,
  )
  // Where the sandbox is reached, learnt once it listens: webhook URLs never point there.
  const selfTarget = new SelfTarget(config.publicUrl)
  const clockRow = await SandboxClockRow.open({ state, clock, logger })
  // First of all that listens to the sandbox clock: frozen partners have moved with it by the
  // time the sweeper and the dispatcher look at their due work.
  const clocks = await PartnerClocks.open(state, clock)
  const scenarios = new ScenarioRegistry(scenario, logger.error)
  const loadedScenarios = await LoadedScenarios.open({ state, scenarios, logger, clock })
  const sandboxScenario = await SandboxScenario.open({ state, scenarios, logger })
  // Webhooks: the fan-out reads the partner's endpoints in the event's own transaction; the
  // dispatcher takes the deliveries it made from the rows, told of each once it committed.
  const names = { signatureHeader: config.signatureHeader, provider: config.providerName }
  // Called only after a commit, so never before the dispatcher below exists.
  const scheduled = (delivery: DeliveryRow) => dispatcher.scheduled(delivery)
  const deliveryCtx = { clocks, random, scenarios, names, scheduled }
  const events = new EventBus(random, clocks, (tx, event) => fanOut(deliveryCtx, tx, event), names)
  const moneyKernel = { clocks, random, events, scenarios }
  const money = new Money({ state, ...moneyKernel })
  const bankConnect = new BankConnect({
    state,
    clocks,
    random,
    events,
    baseUrl: origins.baseUrl,
  })
  const inbox = new Inbox({
    state,
    onError: (error) => logger.error(`trimming the inbox failed: ${(error as Error).stack}`),
  })
  const sessions = new SessionVerifier({ state, clocks })
  const onboarding = new Onboarding({
    state,
    clocks,
    random,
    scenarios,
    events,
    config,
    logger,
    baseUrl: origins.baseUrl,
  })
  const accounts = new Accounts({
    state,
    random,
    clocks,
    events,
    scenarios,
    inbox,
    sessions,
    config,
    baseUrl: origins.baseUrl,
  })
  const journal = new RequestJournal({
    state,
    inProcess: store !== undefined,
    onError: (error) => logger.warn(`the request journal lost a request: ${error}`),
  })
  const rules = new Rules({ state, random, clock, clocks })
  const retention = new Retention({ state, logger })
  events.subscribe((event) => void retention.capPartner(event.partner_id))
  // Built before the dispatcher, so it hears a clock advance first: the events its rules
  // emit on the way exist when the dispatcher runs.
  const sweeper = new Sweeper({
    clock,
    clocks,
    logger,
    // Each run first reads what another process may have changed: the time and scenarios.
    refresh: async () => {
      await readSandboxSettings({ clockRow, sandboxScenario })
      await Promise.all([
        clocks.refreshAll(),
        loadedScenarios.refreshAll(),
        recheckDefaultPartner(),
      ])
    },
    tasks: [
      (scope) => onboarding.resolveDueReviews(scope),
      (scope) => money.settleDueDeposits(scope),
      (scope) => money.resolveDueDisputes(scope),
      // Expired codes leave the inbox's messages (a backlog drains a batch a run).
      (scope) => inbox.expireCodes(scope),
      // Whatever it removed, more may be due: the next second's run looks again.
      async (scope) => (await retention.run(scope)) > 0,
    ],
  })
  const dispatcher = new Dispatcher({
    ...deliveryCtx,
    state,
    clock,
    logger,
    takeMarginMs: internal.takeMarginMs,
    self: selfTarget,
  })
  // After the sweeper: on a clock advance its rules emit events before the dispatcher runs.
  clock.onAdvance(async () => {
    await dispatcher.runDue()
  })
  clocks.onAdvance(async (partnerId) => {
    await dispatcher.runDue(partnerId)
  })
  // A delivery attempt may finish a delivery the per-partner cap can now remove.
  dispatcher.onAttempt((delivery) => void retention.capPartner(delivery.partner_id))
  const partners = new Partners({
    state,
    random,
    clocks,
    events,
    scenarios,
    credentials,
    webhookLimit: config.webhookLimit,
    self: selfTarget,
  })
  const webhooks = new Webhooks({
    state,
    clocks,
    random,
    scenarios,
    names,
    events,
    dispatcher,
    webhookLimit: config.webhookLimit,
    self: selfTarget,
    // A trigger's money is made by the money area's own operations, in the trigger's
    // transaction.
    money: {
      fund: async (tx, partner, user, amount) =>
        (await fundCard(moneyKernel, tx, partner, user, amount)).txn,
      purchase: (tx, partner, user, amount, merchant) =>
        authorizePurchase(moneyKernel, tx, partner, user, amount, merchant as MerchantInput),
    },
  })
  const sinks = new SinkRegistry(state, undefined, config.signatureHeader)
  const platform = new Platform({
    config,
    state,
    random,
    clocks,
    scenarios,
    loadedScenarios,
    sandboxClock: clockRow,
    scheduled,
  })
  return {
    config,
    names,
    store,
    defaultPartnerPresent,
    state,
    clock,
    clockRow,
    clocks,
    random,
    scenarios,
    sandboxScenario,
    logger,
    credentials,
    events,
    inbox,
    sessions,
    dispatcher,
    journal,
    rules,
    sweeper,
    retention,
    sinks,
    webhooks,
    origins,
    selfTarget,
    onboarding,
    baseUrl: origins.baseUrl,
    accounts,
    partners,
    platform,
    loadedScenarios,
    money,
    bankConnect,
  }
}

/** Every piece of one sandbox, as `compose` built it. */
export type SandboxParts = Awaited<ReturnType<typeof compose>>
