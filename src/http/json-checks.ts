/**
 * Checks on a JSON text that `JSON.parse` does not make. Each has a cheap test that rules
 * out nearly every body, and an exact walk that runs only when the cheap test fails.
 */

const keyToken = /"\s*:/g

/**
 * The path of the first key given twice in one object, or null. Cheap test: every key ends
 * with `"` then `:`, so when the text has no more such tokens than the parsed value has
 * keys, no key was repeated (a string holding `":` only adds tokens).
 */
export function duplicateKeyPath(text: string, value: unknown): string | null {
  let tokens = 0
  keyToken.lastIndex = 0
  while (keyToken.exec(text)) tokens++
  if (tokens === 0 || tokens <= countKeys(value)) return null
  return new Scanner(text).duplicate()
}

function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  let n = 0
  if (Array.isArray(value)) {
    for (const item of value) n += countKeys(item)
    return n
  }
  for (const key in value) n += 1 + countKeys((value as Record<string, unknown>)[key])
  return n
}

/** A walk over a JSON text already known to be valid, tracking each object's keys. */
class Scanner {
  private i = 0
  constructor(private readonly text: string) {}

  duplicate(): string | null {
    try {
      this.value('')
      return null
    } catch (found) {
      if (typeof found === 'string') return found
      throw found
    }
  }

  private ws() {
    while (/\s/.test(this.text[this.i] ?? '')) this.i++
  }

  private string(): string {
    const start = this.i++
    while (this.text[this.i] !== '"') this.i += this.text[this.i] === '\\' ? 2 : 1
    this.i++
    return JSON.parse(this.text.slice(start, this.i)) as string
  }

  private value(path: string): void {
    this.ws()
    const ch = this.text[this.i]
    if (ch === '{') {
      this.i++
      const keys = new Set<string>()
      this.ws()
      while (this.text[this.i] !== '}') {
        this.ws()
        const key = this.string()
        const at = path ? `${path}.${key}` : key
        if (keys.has(key)) throw at
        keys.add(key)
        this.ws()
        this.i++ // :
        this.value(at)
        this.ws()
        if (this.text[this.i] === ',') this.i++
      }
      this.i++
    } else if (ch === '[') {
      this.i++
      this.ws()
      for (let index = 0; this.text[this.i] !== ']'; index++) {
        this.value(path ? `${path}.${index}` : String(index))
        this.ws()
        if (this.text[this.i] === ',') this.i++
        this.ws()
      }
      this.i++
    } else if (ch === '"') {
      this.string()
    } else {
      while (this.i < this.text.length && !/[\s,\]}]/.test(this.text[this.i] as string)) this.i++
    }
  }
}

const surrogateEscape = /\\u[dD][89a-fA-F]/

/**
 * The path of the first key or string with an unpaired surrogate, or null. Valid UTF-8
 * cannot carry one, so only a `\uD8xx`-`\uDFxx` escape can make it: no such escape, no walk.
 */
export function loneSurrogatePath(text: string, value: unknown): string | null {
  if (!surrogateEscape.test(text)) return null
  return findLone(value, '')
}

const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()

function findLone(value: unknown, path: string): string | null {
  if (typeof value === 'string') return wellFormed(value) ? null : path || 'body'
  if (value === null || typeof value !== 'object') return null
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>)
  for (const [key, item] of entries) {
    const at = path ? `${path}.${key}` : key
    if (!wellFormed(key)) return at
    const found = findLone(item, at)
    if (found !== null) return found
  }
  return null
}
