import { createRoute } from '@hono/zod-openapi'
import { withContract } from '../openapi/route-contract.js'
import type { TagName } from '../openapi/tags.js'
import type { Access } from './access-level.js'
import { bodyMethods, noBody } from './no-body.js'

export type { Access } from './access-level.js'

const security = {
  public: [],
  org: [{ PartnerKey: [], PartnerSecret: [] }],
  session: [{ PartnerKey: [], PartnerSecret: [], Session: [] }],
  admin: [{ SandboxAdmin: [] }],
  onboarding: [{ OnboardingAccessToken: [] }],
} satisfies Record<Access, Record<string, string[]>[]>

/** The OpenAPI `security` of an access level. */
export const securityOf = (access: Access) => security[access]

const accessLevels = new Set<unknown>(Object.keys(security))
const isAccess = (value: unknown): value is Access => accessLevels.has(value)

/**
 * Where a route's declaration keeps its access. A symbol key, because @hono/zod-openapi
 * copies a route's own properties when a router is mounted under a prefix (so the
 * declaration reaches the app's registry with its full path) and JSON drops symbol keys (so
 * the document does not show it).
 */
const ACCESS = Symbol('access')

type RouteConfig = Parameters<typeof createRoute>[0] & { tags?: TagName[] }

/**
 * A documented route with its access: `security` comes from it, and so does enforcement. What
 * every operation states besides (server errors, response headers) is added here too. A
 * route that may carry a body but declares none reads one as no-body.ts says.
 */
export function accessRoute<R extends RouteConfig>(access: Access, r: R) {
  const takesNoBody = bodyMethods.has(r.method) && r.request?.body === undefined
  const contract = { ...withContract(access, r), security: securityOf(access) }
  const route = createRoute(takesNoBody ? { ...contract, middleware: noBody } : contract)
  Object.defineProperty(route, ACCESS, { value: access, enumerable: true })
  return route
}

/** A route factory for one router: every route gets the group's tags and access. */
export const routeFactory =
  (tags: TagName[], access: Access) =>
  <R extends RouteConfig>(r: R) =>
    accessRoute(access, { ...r, tags })

/** The access a documented route declared (through `accessRoute`), if any. */
export function declaredAccess(route: object): Access | undefined {
  const access = ACCESS in route ? route[ACCESS] : undefined
  return isAccess(access) ? access : undefined
}

const handlerAccess = new WeakMap<object, Access>()

/**
 * A route that is not in the OpenAPI document (a page, a file, an asset) declares its access
 * through its handler, `app.get('/x', withAccess('public', (c) => …))`, or all the plain
 * routes of a router at once, `withAccess('public', router)` (its documented routes keep the
 * access they declared).
 */
export function withAccess<T extends object>(access: Access, target: T): T {
  if ('routes' in target && Array.isArray(target.routes))
    for (const route of target.routes as { handler: object }[])
      handlerAccess.set(route.handler, access)
  else handlerAccess.set(target, access)
  return target
}

/** The access a plain route's handler declared with `withAccess`, if any. */
export const handlerDeclaredAccess = (handler: object) => handlerAccess.get(handler)
