import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// The house's rules, checked on the source itself: no module imports itself back through
// others (a circle makes load order decide what is undefined), and the wiring builds every
// service once, in order, without casting a half-built object into shape.

const SRC = resolve(import.meta.dirname, '../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Relative imports and re-exports (type-only ones too: madge counts them), as .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const out: string[] = []
  for (const match of text.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)) {
    const target = resolve(dirname(file), match[1] as string).replace(/\.js$/, '.ts')
    out.push(target)
  }
  return out
}

/** Every import circle, each as the modules on it (found once, by depth-first search). */
function circlesIn(graph: Map<string, string[]>): string[][] {
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)))
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of graph.keys()) if (!state.has(file)) visit(file)
  return found
}

describe('the house', () => {
  const files = sourceFiles(SRC)

  it('has no import circle in src/', () => {
    const graph = new Map(files.map((file) => [file, importsOf(file)]))
    const found = circlesIn(graph).map((circle) => circle.map((file) => relative(SRC, file)))
    expect(found).toEqual([])
  })

  it('reads imports as madge does, and finds a circle when there is one', () => {
    // Type-only imports count: a circle of types still ties the modules' load order.
    expect(importsOf(join(SRC, 'state/seam.ts'))).toContain(join(SRC, 'state/indexes.ts'))
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ])
    expect(circlesIn(graph)).toEqual([['a', 'b', 'c']])
  })

  it('casts nothing into shape in the wiring', () => {
    for (const file of ['index.ts', 'compose.ts'].map((name) => join(SRC, name))) {
      const text = readFileSync(file, 'utf8')
      expect(text, file).not.toContain('as unknown as')
    }
  })
})

describe('the test suite', () => {
  it('replaces no module and no global: test files share their worker (isolate: false)', () => {
    const TEST = resolve(import.meta.dirname)
    const replacing = /\bvi\.(?:mock|doMock|stubGlobal|stubEnv)\(/
    const found = sourceFiles(TEST)
      .filter((file) => replacing.test(readFileSync(file, 'utf8')))
      .map((file) => relative(TEST, file))
    expect(found).toEqual([])
    // The pattern finds a call when there is one (spelled here so this file holds none).
    expect(replacing.test(`${['vi', 'mock'].join('.')}('node:fs')`)).toBe(true)
  })
})
