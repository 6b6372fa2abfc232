import type { Server } from 'node:http'
import type { Clock } from './clock.js'
import type { SandboxParts } from './compose.js'
import type { ControlClient } from './control/client/index.js'
import type { Store } from './store/store.js'

// The public shape of a sandbox, written as plain interfaces so the published declarations
// name no bundled library (hono, zod): a consumer with only partner-sandbox installed gets
// these types whole. Members tagged internal are for the sandbox's own tests and are left out
// of the published declarations (tsconfig.build.json: stripInternal).

/** The sandbox's HTTP app: answers requests in process, as the server would. */
export interface SandboxApp {
  fetch(request: Request): Response | Promise<Response>
  /** `app.request('/api/v1/partner/me', { headers })`: a path, URL or Request, and its init. */
  request(input: string | URL | Request, init?: RequestInit): Response | Promise<Response>
}

/** A sandbox built by `createSandbox`, not listening. */
export interface Sandbox {
  app: SandboxApp
  /**
   * `app.fetch`, always answering a promise: the shape of the `fetch` option of openapi-fetch,
   * the control client and MSW handlers, so `fetch: sandbox.fetch` type-checks under strict.
   */
  fetch(request: Request): Promise<Response>
  /** `app.request`, always answering a promise. */
  request(input: string | URL | Request, init?: RequestInit): Promise<Response>
  /** The typed control-plane client, calling this sandbox in process (no socket needed). */
  control: ControlClient
  /** The sandbox clock (every partner's clock runs on top of it). */
  clock: Clock
  /**
   * Sets the base URL of links made outside any request (done by startSandbox); within a
   * request, links follow its Host unless a public URL is configured. It is also where the
   * sandbox is served, so webhook URLs that reach it there are refused (but its sink's).
   */
  setBaseUrl(url: string): void
  /**
   * The bundled default partner's credentials, when the state holds it under its bundled key.
   * On PostgreSQL, as read at start, after a reset or restore, and at each sweep (every second),
   * so a removal through any replica shows within a second.
   */
  defaultCredentials(): { apiKey: string; apiSecret: string } | undefined
  /** Stops timers and flushes the data file. */
  close(): Promise<void>
  /** @internal What the sandbox is built of (services, state, clocks), for its own tests. */
  services: SandboxParts
  /** @internal The state itself; change it through `control` instead. */
  store: Store
}

/** A sandbox listening on `url` (started by `startSandbox`). */
export interface RunningSandbox extends Sandbox {
  url: string
  port: number
  server: Server
  /** Closes the server and its connections, then the sandbox. */
  close(): Promise<void>
}
