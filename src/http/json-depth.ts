/**
 * How deep JSON may nest. `JSON.parse` takes any depth, but `JSON.stringify` and every
 * recursive walk (redaction, checks, validation) overflow the stack a few thousand levels
 * down: a body that deep would answer its 400 and then break every later read of it (the
 * journal, debug logs). No request of the API needs more than a handful of levels; 100 is
 * what Ruby's JSON and others allow by default.
 */
export const MAX_JSON_DEPTH = 100

/** What a redacted copy shows in place of a value nested deeper than MAX_JSON_DEPTH. */
export const TOO_DEEP = `[nested deeper than ${MAX_JSON_DEPTH} levels: not shown]`

/**
 * The top-level field (or `body`) under which `value` nests deeper than MAX_JSON_DEPTH, or
 * null. Walks with its own stack, so no depth can overflow it; the text's length rules out
 * nearly every body at once (each level costs at least two characters).
 */
export function tooDeepField(text: string, value: unknown): string | null {
  if (text.length <= 2 * MAX_JSON_DEPTH) return null
  const stack: [unknown, number, string][] = [[value, 0, 'body']]
  while (stack.length > 0) {
    const [item, depth, field] = stack.pop() as [unknown, number, string]
    if (item === null || typeof item !== 'object') continue
    if (depth >= MAX_JSON_DEPTH) return field
    const top = depth === 0 && !Array.isArray(item)
    for (const [key, child] of Object.entries(item))
      stack.push([child, depth + 1, top ? key : field])
  }
  return null
}
