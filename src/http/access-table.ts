import { type Access, declaredAccess, handlerDeclaredAccess } from './access.js'

/** What every declared route under a node asks for, public ones left out (see `fallback`). */
type Needs = Access | 'none' | 'mixed'

interface Node {
  statics: Map<string, Node>
  param?: Node
  wildcard?: Node
  methods: Map<string, Access>
  needs: Needs
  parent?: Node
}

const node = (parent?: Node): Node => ({
  statics: new Map(),
  methods: new Map(),
  needs: 'none',
  parent,
})

/** What two requirements have in common: a session includes the organization credentials. */
function common(a: Needs, b: Access): Needs {
  if (b === 'public' || b === 'onboarding' || a === b) return a
  if (a === 'none') return b
  if ((a === 'org' || a === 'session') && (b === 'org' || b === 'session')) return 'org'
  return 'mixed'
}

/** `/a/b/` and `/a/b` are one path here, as the gates have always taken them. */
const segmentsOf = (path: string) => {
  const segments = path.slice(1).split('/')
  if (segments[segments.length - 1] === '') segments.pop()
  return segments
}

/**
 * Every route's declared access by method and path, and what a request no route matches
 * needs. Built once the app's routers are mounted (`load`), from the routes' own
 * declarations; looked up by the gates on every request: a walk down a tree of segments.
 */
export class AccessTable {
  private readonly root = node()
  private readonly routes: { method: string; path: string; access: Access }[] = []

  /** The routes of `app` (its OpenAPI registry and its plain routes) with their access. */
  load(app: {
    routes: readonly { method: string; path: string; handler: object }[]
    openAPIRegistry: { definitions: readonly unknown[] }
  }): this {
    const declared = new Set<string>()
    for (const def of app.openAPIRegistry.definitions as { type: string; route?: object }[]) {
      const route = def.type === 'route' ? (def.route as { method: string; path: string }) : null
      const access = route && declaredAccess(route)
      if (!route || !access) continue
      const path = route.path.replaceAll(/\{([^}]+)\}/g, ':$1')
      this.declare(route.method.toUpperCase(), path, access)
      declared.add(`${route.method.toUpperCase()} ${path}`)
    }
    for (const { method, path, handler } of app.routes) {
      if (method === 'ALL' || declared.has(`${method} ${path}`)) continue
      const access = handlerDeclaredAccess(handler as () => unknown)
      // A route that forgot its access would be guarded by a guess: refuse to start instead.
      if (!access) throw new Error(`${method} ${path} declares no access (see http/access.ts)`)
      this.declare(method, path, access)
      declared.add(`${method} ${path}`)
    }
    return this
  }

  /** One route: hono's path syntax (`/a/:id`, a trailing `*`). */
  declare(method: string, path: string, access: Access): void {
    let at = this.root
    at.needs = common(at.needs, access)
    for (const segment of segmentsOf(path)) {
      let next: Node | undefined
      if (segment === '*') next = at.wildcard ??= node(at)
      else if (segment.startsWith(':')) next = at.param ??= node(at)
      else {
        next = at.statics.get(segment) ?? node(at)
        at.statics.set(segment, next)
      }
      at = next
      at.needs = common(at.needs, access)
    }
    at.methods.set(method, access)
    this.routes.push({ method, path, access })
  }

  /** Every declared route with its access, in the order declared. */
  declared(): readonly { method: string; path: string; access: Access }[] {
    return this.routes
  }

  /**
   * The access of the route `method path` stands for. A request no route takes (a 404 or a
   * 405) needs what the routes around it have in common: those under the deepest known
   * prefix of its path, public ones left out, so an unknown path never opens up because a
   * public page is its neighbour. Undefined when they have nothing in common.
   */
  of(method: string, path: string): Access | undefined {
    // hono answers HEAD with the GET route.
    const segments = segmentsOf(path)
    return (
      match(this.root, segments, 0, method === 'HEAD' ? 'GET' : method) ??
      fallback(deepest(this.root, segments))
    )
  }
}

/** The route for the segments from `i` on: a literal segment before a parameter before `*`. */
function match(at: Node, segments: string[], i: number, method: string): Access | undefined {
  if (i === segments.length) return at.methods.get(method)
  const segment = segments[i] as string
  const literal = at.statics.get(segment)
  const found =
    (literal && match(literal, segments, i + 1, method)) ??
    (at.param && segment !== '' ? match(at.param, segments, i + 1, method) : undefined)
  return found ?? at.wildcard?.methods.get(method)
}

/** The node the path reaches, literal segments first, before no route goes further. */
function deepest(root: Node, segments: string[]): Node {
  let at = root
  for (const segment of segments) {
    const next = at.statics.get(segment) ?? (segment !== '' ? at.param : undefined)
    if (!next) break
    at = next
  }
  return at
}

function fallback(from: Node): Access | undefined {
  let at: Node | undefined = from
  while (at && at.needs === 'none') at = at.parent
  return !at || at.needs === 'mixed' || at.needs === 'none' ? undefined : at.needs
}
