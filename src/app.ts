import { OpenAPIHono } from '@hono/zod-openapi'
import type { ErrorHandler, NotFoundHandler } from 'hono'
import type { SandboxParts } from './compose.js'
import { adminGuard } from './control/admin-guard.js'
import { controlPlane } from './control/index.js'
import { mountDocs } from './docs/routes.js'
import { ApiError } from './errors.js'
import { mountFavicon } from './hosted/favicon.js'
import { withAccess } from './http/access.js'
import { AccessTable } from './http/access-table.js'
import { allowedMethods } from './http/allowed-methods.js'
import { apiGate } from './http/api-gate.js'
import type { AppEnv } from './http/app-env.js'
import { bodyLimit } from './http/body-limit.js'
import { renderError } from './http/error-handler.js'
import { journalRequests } from './http/journal-requests.js'
import { productionFieldNames } from './http/production-names.js'
import { partnerSettingsFirst, sandboxSettingsFirst } from './http/read-first.js'
import { requestIds } from './http/request-id.js'
import { requestLog } from './http/request-log.js'
import { originsOf } from './http/request-origin.js'
import { validationHook } from './http/validation.js'
import { composeExamples } from './openapi/compose-examples.js'
import { namedDocuments } from './openapi/named-document.js'
import { operationIndex } from './openapi/operations.js'
import { markProvenance } from './openapi/provenance.js'
import { registerResponseHeaders } from './openapi/response-headers.js'
import { documentTags } from './openapi/tags.js'
import { registerWebhookDelivery } from './openapi/webhook-delivery.js'
import { packageVersion } from './package-root.js'
import { createRandom } from './random.js'
import { authRoutes } from './routes/auth.js'
import { bankConnectRoutes } from './routes/bank-connect.js'
import { disputeRoutes } from './routes/disputes.js'
import { embedRoutes } from './routes/embed.js'
import { fileRoutes } from './routes/files.js'
import { fundingRoutes } from './routes/funding.js'
import { onboardingRoutes } from './routes/onboarding.js'
import { partnerRoutes } from './routes/partner.js'
import { transactionRoutes } from './routes/transactions.js'
import { userRoutes } from './routes/users.js'
import { webhookRoutes } from './routes/webhooks.js'
import { scenarioContractMessage, scenarioRuleProblems } from './rules/contract.js'

const description = [
  'A stateful, offline sandbox of the Partner Card Service API.',
  'Errors everywhere: `{ success: false, error: { code, message, details? }, requestId }`.',
  'Only test-mode credentials (`pk_test_`/`sk_test_`) are accepted.',
  'Rate limit: `rate_limit` requests per minute per partner; headers X-RateLimit-Limit, -Remaining, -Reset (unix seconds); 429 with Retry-After.',
  "Names: this document spells the webhook signature header X-Service-Signature and the provider's word in field names provider_consumer_id as this sandbox is set (`--signature-header`, `--provider-name`, or a partner's own names with `?partner_id=`); the spec's own words are placeholders for production's.",
].join(' ')

/** Composes middleware and routers. Never listens: `startSandbox` or the CLI binds a port. */
export function createApp(deps: SandboxParts) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  // Request ids: a per-run random prefix and a counter. The prefix comes from its own stream
  // so that --seed keeps entity ids independent of request counts.
  const prefix = createRandom(
    deps.config.seed === undefined ? undefined : deps.config.seed + 1,
  ).token(10)
  let requests = 0
  // Each route's declared access, filled in once every router is mounted (below).
  const access = new AccessTable()
  // The partner API's operations, read from its routes once all are mounted (below).
  const operations = operationIndex(() => app.openAPIRegistry.definitions)
  app.use(requestIds(() => `req_${prefix}${(requests++).toString(36)}`))
  // Outside everything else, so what they see is the answer the client gets.
  app.use(journalRequests(deps))
  if (deps.logger.enabled('info')) app.use(requestLog(deps.logger))
  // Links made anywhere in the request use its Host.
  app.use(originsOf(deps.origins))
  app.use(sandboxSettingsFirst(deps, '/api/v1/'))
  // The API's body limit before its gate: 413 before 401.
  app.use('/api/*', bodyLimit(deps.config.bodyLimit, deps.config.pictureLimit + 64 * 1024))
  app.use('/api/v1/*', apiGate({ ...deps, operations }, access))
  app.use('/embed/*', bodyLimit(64 * 1024))
  app.use('/embed/*', partnerSettingsFirst(deps))
  // The control plane takes the API's limit; only a snapshot restore, a whole state, more.
  const controlLimit = bodyLimit(deps.config.bodyLimit, deps.config.bodyLimit)
  const snapshotLimit = bodyLimit(deps.config.snapshotLimit, deps.config.snapshotLimit)
  app.use('/_sandbox/*', (c, next) =>
    (isSnapshotRestore(c.req.path) ? snapshotLimit : controlLimit)(c, next),
  )
  app.use('/_sandbox/*', adminGuard(deps.config.adminToken, access))
  app.use('/_sandbox/*', partnerSettingsFirst(deps))
  app.use('/api/v1/*', productionFieldNames(deps.config.providerName))

  app.route('/api/v1', partnerRoutes(deps))
  app.route('/api/v1', authRoutes(deps))
  app.route('/api/v1', userRoutes(deps))
  app.route('/api/v1', webhookRoutes(deps))
  app.route('/api/v1', onboardingRoutes(deps))
  app.route('/api/v1', fundingRoutes(deps))
  app.route('/api/v1', transactionRoutes(deps))
  app.route('/api/v1', disputeRoutes(deps))
  app.route('/api/v1', bankConnectRoutes(deps))
  app.route('/_sandbox', controlPlane(deps, operations))
  app.route('/files', fileRoutes(deps))
  app.route('/embed', embedRoutes(deps))
  // The scenario the sandbox starts with is held to the contract as a loaded one is.
  const problems = scenarioRuleProblems(operations, deps.scenarios.started.rules)
  if (problems.length > 0)
    throw new Error(scenarioContractMessage(`Scenario ${deps.scenarios.started.name}`, problems))

  const registry = app.openAPIRegistry
  registry.registerComponent('securitySchemes', 'PartnerKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Partner-Key',
  })
  registry.registerComponent('securitySchemes', 'PartnerSecret', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Partner-Secret',
  })
  registry.registerComponent('securitySchemes', 'Session', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  })
  registry.registerComponent('securitySchemes', 'SandboxAdmin', { type: 'http', scheme: 'bearer' })
  registry.registerComponent('securitySchemes', 'OnboardingAccessToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The accessToken of the onboarding start response (hosted flow steps only).',
  })

  registerResponseHeaders(registry)
  registerWebhookDelivery(registry)

  let doc: ReturnType<typeof app.getOpenAPI31Document> | undefined
  const openapi = () => {
    doc ??= markProvenance(
      composeExamples(
        app.getOpenAPI31Document({
          openapi: '3.1.0',
          info: {
            title: 'Partner Card Service API (sandbox)',
            version: packageVersion,
            description,
            license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
            // No address to give: the sandbox is run by the partner's own team.
            contact: { name: 'partner-sandbox' },
          },
          tags: documentTags,
        }),
      ),
    )
    return doc
  }
  // The server is the address this request reached the sandbox at (or --public-url), as for
  // every link it returns: a generated client or mock then matches absolute URLs.
  // With the production names of the sandbox, or of the partner `?partner_id=` names.
  const named = namedDocuments(openapi, deps.names, deps.state)
  app.get(
    '/openapi.json',
    withAccess('public', async (c) =>
      c.json({ ...(await named(c.req.query('partner_id'))), servers: [serverOf(deps.origins)] }),
    ),
  )
  mountDocs(app, deps)
  mountFavicon(app)
  app.get(
    '/',
    withAccess('public', (c) => c.redirect('/docs')),
  )
  access.load(app)
  accessTables.set(app, access)

  const allowed = allowedMethods(app.routes)
  const notFound: NotFoundHandler<AppEnv> = (c) => {
    const methods = allowed(c.req.path)
    const error = methods.length
      ? new ApiError(
          'method_not_allowed',
          `${c.req.method} is not allowed on ${c.req.path}; it takes ${methods.join(', ')}. See /docs for the API reference.`,
          { headers: { Allow: methods.join(', ') } },
        )
      : new ApiError(
          'not_found',
          `No route ${c.req.method} ${c.req.path}. See /docs for the API reference.`,
        )
    return renderError(error, c, deps.logger)
  }
  const onError: ErrorHandler<AppEnv> = (error, c) => renderError(error, c, deps.logger)
  app.notFound(notFound)
  app.onError(onError)
  return app
}

/** This sandbox as the document's server; `x-internal` says it is meant for partners. */
const serverOf = (origins: { baseUrl(): string }) => ({
  url: origins.baseUrl(),
  description: 'This sandbox. API paths start with /api/v1; the control plane with /_sandbox.',
  'x-internal': false,
})

const isSnapshotRestore = (path: string) =>
  path === '/_sandbox/snapshot' || /^\/_sandbox\/partners\/[^/]+\/snapshot\/?$/.test(path)

export type SandboxApp = ReturnType<typeof createApp>

const accessTables = new WeakMap<object, AccessTable>()

/** The access every route of an app declared (for tests and tools that list them). */
export const accessOf = (app: object) => accessTables.get(app) as AccessTable
