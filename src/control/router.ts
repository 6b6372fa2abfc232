import { type createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { type Access, accessRoute } from '../http/access.js'
import type { AppEnv } from '../http/app-env.js'
import { validationHook } from '../http/validation.js'
import type { TagName } from '../openapi/tags.js'

const tags: TagName[] = ['Sandbox control']

/** A router of the control plane: our validation hook, mounted under /_sandbox. */
export const controlRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

/** A control-plane route: the control tag, and `admin` access unless the route declares
 * another (the open health check and sink declare `access: 'public'`). */
export const controlRoute = <R extends Parameters<typeof createRoute>[0]>({
  access = 'admin',
  ...r
}: R & { access?: Access }) => accessRoute(access, { ...r, tags })

/** The answer of a control action that has nothing else to return. */
export const Ok = z
  .object({ ok: z.literal(true), message: z.string() })
  .openapi('SandboxOk', { example: { ok: true, message: 'Sandbox reset to fixtures.' } })
