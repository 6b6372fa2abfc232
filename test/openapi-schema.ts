import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/**
 * Validates values against the schemas of the sandbox's own OpenAPI 3.1 document with Ajv
 * (draft 2020-12, OpenAPI 3.1's dialect): the tests check examples and live responses
 * against the document a partner's generator reads.
 */

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read field by field
export type OpenApiDoc = any

export function schemaValidator(doc: OpenApiDoc) {
  // `example` and the OpenAPI-only keywords are annotations, not assertions.
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  // biome-ignore lint/suspicious/noExplicitAny: ajv-formats' CJS default export under NodeNext
  ;(addFormats as any).default ? (addFormats as any).default(ajv) : (addFormats as any)(ajv)
  ajv.addSchema({ $id: 'https://sandbox.test/openapi.json', components: doc.components })
  const cache = new Map<string, ValidateFunction>()
  const compile = (schema: unknown) => {
    const text = JSON.stringify(schema).replaceAll(
      '"#/components/',
      '"https://sandbox.test/openapi.json#/components/',
    )
    const known = cache.get(text)
    if (known) return known
    const validate = ajv.compile(JSON.parse(text))
    cache.set(text, validate)
    return validate
  }
  /** Problems of `value` against `schema` (empty when it conforms). */
  return (schema: unknown, value: unknown): string[] => {
    const validate = compile(schema)
    if (validate(value)) return []
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`)
  }
}

/** The schema of one response of one operation of the document. */
export function responseSchema(
  doc: OpenApiDoc,
  method: string,
  path: string,
  status: number,
  media = 'application/json',
) {
  const operation = doc.paths[path]?.[method.toLowerCase()]
  const response = operation?.responses?.[String(status)]
  return response?.content?.[media]?.schema
}

/** Every operation of the document, with its method and path. */
export function operationsOf(doc: OpenApiDoc) {
  const out: { method: string; path: string; op: OpenApiDoc }[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, object>)) {
    for (const [method, op] of Object.entries(item)) out.push({ method, path, op })
  }
  return out
}
