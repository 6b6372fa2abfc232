import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/**
 * The sandbox's contract, as the drift proxy checks traffic against it: its own OpenAPI 3.1
 * document, each operation found by method and path, and each body held to its schema with
 * Ajv (draft 2020-12, OpenAPI 3.1's dialect). Strict about fields: a field the contract does
 * not name is a difference too (`unevaluatedProperties: false` on every closed object).
 */

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read field by field
type Doc = any

export interface Operation {
  id: string
  method: string
  /** The path as the document writes it: `/api/v1/partner/webhooks/{id}`. */
  template: string
  // biome-ignore lint/suspicious/noExplicitAny: the document's operation object
  spec: any
}

/** One way a value differs from its schema. */
export interface SchemaProblem {
  kind: 'field' | 'type'
  /** `body.data.card.status`: where in the message. */
  where: string
  message: string
}

const ID = 'https://partner-sandbox.contract/openapi.json'
const METHODS = ['get', 'put', 'post', 'patch', 'delete']

export class Contract {
  private readonly routes: { regex: RegExp; operation: Operation }[] = []
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true })
  private readonly compiled = new Map<string, ValidateFunction>()

  constructor(private readonly doc: Doc) {
    for (const [template, item] of Object.entries<Doc>(doc.paths)) {
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')
      for (const method of METHODS) {
        const spec = item[method]
        if (!spec) continue
        const operation = { id: spec.operationId as string, method, template, spec }
        this.routes.push({ regex: new RegExp(`^${pattern}$`), operation })
      }
    }
    // A literal segment wins over a parameter (`/webhooks/events` over `/webhooks/{id}`).
    this.routes.sort(
      (a, b) => literalLength(b.operation.template) - literalLength(a.operation.template),
    )
    // biome-ignore lint/suspicious/noExplicitAny: ajv-formats' CJS default export under NodeNext
    const formats = addFormats as any
    ;(formats.default ?? formats)(this.ajv)
    this.ajv.addSchema({ $id: ID, components: { schemas: closedSchemas(doc.components.schemas) } })
  }

  /** The operation of `method` and `path` (no query), if the contract has one. */
  match(method: string, path: string): Operation | undefined {
    const m = method.toLowerCase()
    return this.routes.find((r) => r.operation.method === m && r.regex.test(path))?.operation
  }

  /** A response object of the operation for `status`: exact, `4XX`-style, or `default`. */
  // biome-ignore lint/suspicious/noExplicitAny: the document's response object
  response(operation: Operation, status: number): any {
    const responses = operation.spec.responses ?? {}
    return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default
  }

  /** A header component the document refers to (`#/components/headers/X-Request-Id`). */
  // biome-ignore lint/suspicious/noExplicitAny: the document's header object
  header(ref: any): any {
    const name = typeof ref?.$ref === 'string' ? ref.$ref.split('/').pop() : undefined
    return name ? this.doc.components.headers?.[name] : ref
  }

  /** How `value` differs from `schema`: missing and unexpected fields, wrong types. */
  problems(schema: unknown, value: unknown, root: string): SchemaProblem[] {
    const validate = this.compile(schema)
    if (validate(value)) return []
    return problemsOf(validate.errors ?? [], root)
  }

  private compile(schema: unknown): ValidateFunction {
    const text = JSON.stringify(schema).replaceAll('"#/components/', `"${ID}#/components/`)
    let validate = this.compiled.get(text)
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(text))
      this.compiled.set(text, validate)
    }
    return validate
  }
}

const literalLength = (template: string) => template.replace(/\{[^}]+\}/g, '').length

/**
 * The component schemas with every object that names its properties closed to others; not
 * those an `allOf` extends (another part of it names the rest).
 */
function closedSchemas(schemas: Record<string, Doc>): Record<string, Doc> {
  const copy = structuredClone(schemas)
  const extended = new Set<string>()
  const findExtended = (node: Doc) => {
    if (Array.isArray(node)) {
      for (const n of node) findExtended(n)
      return
    }
    if (!node || typeof node !== 'object') return
    for (const part of node.allOf ?? []) if (part.$ref) extended.add(part.$ref.split('/').pop())
    for (const value of Object.values(node)) findExtended(value)
  }
  findExtended(copy)
  const close = (node: Doc, isExtended: boolean) => {
    if (Array.isArray(node)) {
      for (const n of node) close(n, false)
      return
    }
    if (!node || typeof node !== 'object') return
    if (node.properties && node.additionalProperties === undefined && !node.allOf && !isExtended)
      node.unevaluatedProperties = false
    for (const value of Object.values(node)) close(value, false)
  }
  for (const [name, schema] of Object.entries(copy)) close(schema, extended.has(name))
  return copy
}

/** Ajv's errors as differences; a union's failed branches as one difference at the union. */
function problemsOf(errors: ErrorObject[], root: string): SchemaProblem[] {
  const unions = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => e.instancePath)
  const underUnion = (e: ErrorObject) =>
    e.keyword !== 'anyOf' &&
    e.keyword !== 'oneOf' &&
    unions.some((path) => e.instancePath === path || e.instancePath.startsWith(`${path}/`))
  const seen = new Set<string>()
  const out: SchemaProblem[] = []
  for (const e of errors) {
    if (underUnion(e) || e.keyword === 'if') continue
    const at = (extra?: string) =>
      [root, ...e.instancePath.split('/').filter(Boolean), ...(extra ? [extra] : [])].join('.')
    const problem: SchemaProblem =
      e.keyword === 'required'
        ? {
            kind: 'field',
            where: at(e.params.missingProperty),
            message: 'missing: the contract requires it',
          }
        : e.keyword === 'unevaluatedProperties' || e.keyword === 'additionalProperties'
          ? {
              kind: 'field',
              where: at(e.params.unevaluatedProperty ?? e.params.additionalProperty),
              message: 'not in the contract',
            }
          : e.keyword === 'anyOf' || e.keyword === 'oneOf'
            ? {
                kind: 'type',
                where: at(),
                message: 'matches none of the shapes the contract allows',
              }
            : { kind: 'type', where: at(), message: `${e.message ?? e.keyword} (${e.keyword})` }
    const key = `${problem.kind} ${problem.where} ${problem.message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(problem)
  }
  return out
}
