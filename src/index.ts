import type { Server } from 'node:http'
import { serve } from '@hono/node-server'
import type { z } from 'zod'
import { createApp } from './app.js'
import { compose, type InternalOptions } from './compose.js'
import { type SandboxConfig, sandboxOptionsSchema } from './config.js'
import { createControlClient } from './control/client/index.js'
import { humanMessage, valueAt } from './http/issue-messages.js'
import { hostForUrl } from './http/request-origin.js'
import { requestsUnderWay } from './http/requests-under-way.js'
import { guardSlowBodies, slowClientServerOptions } from './http/slow-clients.js'
import { flushLogs } from './log-destination.js'
import { createLogger } from './logger.js'
import type { SandboxOptions } from './sandbox-options.js'
import type { RunningSandbox, Sandbox, SandboxApp } from './sandbox-types.js'
import { describeIssues } from './scenarios/loader.js'
import { DEFAULT_PARTNER } from './store/default-credentials.js'
import type { Store } from './store/store.js'

export type { Clock, ClockState } from './clock.js'
export * from './control/client/index.js'
export type { SandboxOptions } from './sandbox-options.js'
export type { RunningSandbox, Sandbox, SandboxApp } from './sandbox-types.js'
export { ScenarioError } from './scenarios/loader.js'
export { DatabaseError } from './state/database-error.js'
export { DEFAULT_PARTNER } from './store/default-credentials.js'
export { DataFileError } from './store/snapshot-file.js'

export class ConfigError extends Error {
  override name = 'ConfigError'
  /** Each bad option (its key in SandboxOptions) and what is wrong with it, for the CLI. */
  constructor(
    message: string,
    readonly problems: { option: string; message: string }[] = [],
  ) {
    super(message)
  }
}

/** @internal Validates options into the config (the CLI and tests use it). */
export function parseOptions(options: SandboxOptions): SandboxConfig {
  const parsed = sandboxOptionsSchema.safeParse(options)
  if (!parsed.success) {
    const error = parsed.error as z.ZodError
    const problems = error.issues.map((issue) => {
      const { value, present } = valueAt(options, issue.path)
      return { option: issue.path.join('.'), message: humanMessage(issue, value, present) }
    })
    throw new ConfigError(`invalid options: ${describeIssues(error, options)}`, problems)
  }
  return parsed.data
}

/**
 * Builds a sandbox without listening: use `sandbox.app.request()` in tests, or
 * `sandbox.fetch` with any server. Call `close()` to flush the data file.
 */
export function createSandbox(options?: SandboxOptions): Promise<Sandbox>
/** @internal With tuning only the sandbox's own tests use (compose.ts). */
export function createSandbox(options: SandboxOptions, internal: InternalOptions): Promise<Sandbox>
export async function createSandbox(
  options: SandboxOptions = {},
  internal: InternalOptions = {},
): Promise<Sandbox> {
  const config = parseOptions(options)
  const logger = createLogger({
    level: config.logLevel,
    format: config.logFormat,
    color: !config.onLog && Boolean(process.stderr.isTTY) && !process.env.NO_COLOR,
    write: config.onLog,
  })
  const parts = await compose(config, logger, internal)
  const { store, clock } = parts
  const app = createApp(parts)
  return {
    app,
    services: parts,
    clock,
    store: store ?? noStore,
    // Promise-wrapped for the public type; the server's bindings (the node request and
    // response, which a rule uses to drop a connection) pass through.
    fetch: async (request: Request, ...bindings: unknown[]) =>
      (app.fetch as (request: Request, ...rest: unknown[]) => Response | Promise<Response>)(
        request,
        ...bindings,
      ),
    request: async (input: string | URL | Request, init?: RequestInit) => app.request(input, init),
    control: inProcessControl(app, parts.baseUrl(), config.adminToken),
    setBaseUrl(url: string) {
      parts.origins.setListenUrl(url)
      parts.selfTarget.listening(url)
    },
    defaultCredentials() {
      return parts.defaultPartnerPresent()
        ? { apiKey: DEFAULT_PARTNER.api_key, apiSecret: DEFAULT_PARTNER.api_secret }
        : undefined
    },
    close: async () => {
      // Everything that uses the state on its own (sweeps, webhook attempts, then what they
      // set off) ends before the state closes: on PostgreSQL a query after that fails, and a
      // clean stop would log it as an error.
      await Promise.all([parts.sweeper.stop(), parts.dispatcher.stop()])
      await Promise.all([parts.retention.settled(), parts.clockRow.settled()])
      await parts.state.close()
      // Lines on stderr are written asynchronously: the last ones are out before close resolves.
      if (!config.onLog) await flushLogs()
    },
  }
}

/** The PostgreSQL engine keeps no store in memory: a test that reaches for one is told why. */
const noStore = new Proxy({} as Store, {
  get() {
    throw new Error('the PostgreSQL engine has no in-memory store: read services.state')
  },
})

const inProcessControl = (
  app: Pick<SandboxApp, 'fetch'>,
  url: string,
  adminToken: string | undefined,
) => createControlClient(url, { adminToken, fetch: (request) => app.fetch(request) })

/** Creates a sandbox and listens (port 0 picks a free one). Resolves once it accepts connections. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const sandbox = await createSandbox(options)
  const { host, port } = sandbox.services.config
  // The app's own fetch, not the promise-wrapped `sandbox.fetch`: the wrapper is for the
  // public type, and on the server it would cost an async call on every request.
  const requests = requestsUnderWay(sandbox.app.fetch as Parameters<typeof serve>[0]['fetch'])
  const server = await new Promise<Server>((resolve, reject) => {
    // Without a createServer option, serve() makes a node:http Server.
    const s = serve(
      {
        fetch: requests.fetch,
        hostname: host,
        port,
        serverOptions: slowClientServerOptions(sandbox.services.config),
      },
      () => resolve(s as Server),
    )
    s.once('error', reject)
    guardSlowBodies(s as Server, sandbox.services.config)
  })
  const address = server.address()
  const boundPort = typeof address === 'object' && address ? address.port : port
  const url = `http://${hostForUrl(host)}:${boundPort}`
  sandbox.setBaseUrl(url)
  return {
    ...sandbox,
    control: inProcessControl(sandbox.app, url, sandbox.services.config.adminToken),
    url,
    port: boundPort,
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        if ('closeAllConnections' in server) server.closeAllConnections()
      })
      // Their sockets are closed, but the handlers under way still write: they end first.
      await requests.settled()
      await sandbox.close()
    },
  }
}
