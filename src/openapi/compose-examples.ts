/**
 * Gives every request and response media type of the OpenAPI document an `example`, built
 * from the examples the zod schemas carry (`.openapi({ example })`): an envelope
 * `{ success, data }` or a list `{ data: [...], has_more }` is composed from its parts, so
 * each example is written once. A part with no example of its own (a bare string, number
 * or boolean) leaves the media type without one, which test/openapi-contract.test.ts
 * reports: the schema needs an example, a generic one would teach a partner nothing.
 */

type Json = Record<string, unknown>
type Doc = { paths: Record<string, Record<string, Json>>; components?: { schemas?: Json } }

const MISSING = Symbol('missing')

function composer(doc: Doc) {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Json>
  const resolve = (schema: Json): Json => {
    const ref = schema.$ref
    if (typeof ref !== 'string') return schema
    return resolve(schemas[ref.replace('#/components/schemas/', '')] ?? {})
  }
  const exampleOf = (raw: Json, depth = 0): unknown => {
    if (depth > 20) return MISSING
    if (typeof raw.$ref === 'string' && raw.example !== undefined) return raw.example
    const schema = resolve(raw)
    if (schema.example !== undefined) return schema.example
    if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0]
    if (schema.const !== undefined) return schema.const
    if (Array.isArray(schema.enum)) return schema.enum[0]
    if (schema.default !== undefined) return schema.default
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = schema[key]
      if (!Array.isArray(options)) continue
      const candidates = options as Json[]
      // A nullable value: the value's own example when it has one.
      const nonNull = candidates.filter((o) => o.type !== 'null')
      for (const option of nonNull) {
        const value = exampleOf(option, depth + 1)
        if (value !== MISSING) return value
      }
      return candidates.length > nonNull.length ? null : MISSING
    }
    const type = schema.type
    const types = Array.isArray(type) ? type : [type]
    if (types.includes('object') || schema.properties) {
      const props = (schema.properties ?? {}) as Record<string, Json>
      const required = new Set((schema.required ?? []) as string[])
      const out: Json = {}
      for (const [name, prop] of Object.entries(props)) {
        const value = exampleOf(prop, depth + 1)
        if (value !== MISSING) out[name] = value
        else if (required.has(name)) return MISSING
      }
      return out
    }
    if (types.includes('array')) {
      const item = exampleOf((schema.items ?? {}) as Json, depth + 1)
      return item === MISSING ? MISSING : [item]
    }
    if (types.includes('null')) return null
    return MISSING
  }
  return exampleOf
}

/** Fills `example` on each media type that has none and whose schema can compose one. */
export function composeExamples<D>(document: D): D {
  const doc = document as unknown as Doc
  const exampleOf = composer(doc)
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      const bodies = [
        (operation.requestBody as Json | undefined)?.content,
        ...Object.values((operation.responses ?? {}) as Record<string, Json>).map((r) => r.content),
      ]
      for (const content of bodies) {
        for (const media of Object.values((content ?? {}) as Record<string, Json>)) {
          if (media.example !== undefined || media.examples !== undefined || !media.schema) continue
          const value = exampleOf(media.schema as Json)
          if (value !== MISSING) media.example = value
        }
      }
    }
  }
  return document
}
