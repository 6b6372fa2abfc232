import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'

const tags = ['Sandbox control']
const security = [{ SandboxAdmin: [] }]

/** A router of the control plane: our validation hook, mounted under /_sandbox. */
export const controlRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

/** A control-plane route: the control tag and the admin-token security scheme (unless the
 * route gives its own, as the open health check does with `security: []`). */
export const controlRoute = <R extends Parameters<typeof createRoute>[0]>(r: R) =>
  createRoute({ ...r, tags, security: r.security ?? security })

/** The answer of a control action that has nothing else to return. */
export const Ok = z
  .object({ ok: z.literal(true), message: z.string() })
  .openapi('SandboxOk', { example: { ok: true, message: 'Sandbox reset to fixtures.' } })
