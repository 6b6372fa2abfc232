import type { z } from 'zod'
import { type Access, declaredAccess } from '../http/access.js'

/**
 * The partner API's operations as the zod routes declare them (the same declarations that
 * make /openapi.json): method, path template and, per documented status, the zod schema of
 * the JSON answer. Rules' answers are checked against these, so a stub can never say
 * what the real service would not.
 */
export interface Operation {
  operationId: string | null
  method: string
  /** OpenAPI template, e.g. `/api/v1/partner/users/{id}`. */
  path: string
  /** Documented statuses: the JSON body's schema, or null for an answer without one. */
  responses: Map<number, z.ZodType | null>
  /** Who may call it, as the route declared (http/access.ts). */
  access: Access | undefined
}

/** What @hono/zod-openapi keeps in its registry for each route (the parts read here). */
interface RouteDefinition {
  type: string
  route?: {
    method: string
    path: string
    operationId?: string
    responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>
  }
}

export interface OperationIndex {
  /** The operation a request path (as sent, or a `{name}` template) stands for, if any. */
  find(method: string, path: string): Operation | undefined
}

/** Built on first use, once every router is mounted (routes are added while the app is built). */
export function operationIndex(definitions: () => readonly unknown[]): OperationIndex {
  let operations: Operation[] | undefined
  const load = () => {
    operations ??= (definitions() as RouteDefinition[]).flatMap((def) => {
      const route = def.type === 'route' ? def.route : undefined
      if (!route?.path.startsWith('/api/v1/')) return []
      const responses = new Map<number, z.ZodType | null>()
      for (const [status, response] of Object.entries(route.responses ?? {})) {
        const schema = response.content?.['application/json']?.schema
        if (/^\d{3}$/.test(status)) responses.set(Number(status), (schema as z.ZodType) ?? null)
      }
      return [
        {
          operationId: route.operationId ?? null,
          method: route.method.toUpperCase(),
          path: route.path,
          responses,
          access: declaredAccess(route),
        },
      ]
    })
    return operations
  }
  return {
    find(method, path) {
      const segments = path.split('/')
      let best: Operation | undefined
      let bestScore = -1
      for (const op of load()) {
        if (op.method !== method) continue
        const score = segmentScore(op.path.split('/'), segments)
        if (score > bestScore) {
          best = op
          bestScore = score
        }
      }
      return best
    },
  }
}

const isParam = (segment: string) => /^\{[^}]+\}$/.test(segment)

/**
 * How well a template fits a path: -1 when it does not, else the number of literal segments
 * that are equal, so `/users/me` picks the `me` route over `/users/{id}`.
 */
function segmentScore(template: string[], path: string[]): number {
  if (template.length !== path.length) return -1
  let score = 0
  for (let i = 0; i < template.length; i++) {
    const want = template[i] as string
    const got = path[i] as string
    if (want === got) score++
    else if (!isParam(want) || got === '') return -1
  }
  return score
}
