import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readFixturesFile } from '../src/store/fixtures-text.js'

const dir = mkdtempSync(join(tmpdir(), 'fixtures-text-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let n = 0
const read = (text: string) => {
  const file = join(dir, `f${n++}.json`)
  writeFileSync(file, text)
  return readFixturesFile(file)
}

// Rows long enough that the users list is cut into several batches, with strings holding
// the characters the reader steps over: quotes, backslashes, brackets, commas, non-ASCII.
const users = Array.from({ length: 4000 }, (_, i) => ({
  id: `u${i}`,
  partner_id: 'p1',
  note: `${'\\'.repeat(i % 3)}"}],{[ é ${'x'.repeat(400)}`,
  metadata: {},
  nested: [i, { a: '[' }],
}))

describe('reading a fixtures file a batch of rows at a time', () => {
  it('answers exactly what JSON.parse of the whole file answers', () => {
    const doc = { description: 'users', users, partners: [{ id: 'p1', config: {} }] }
    for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2), '{"users":[ ]}'])
      expect(read(text)).toEqual(JSON.parse(text))
  })

  it('leaves invalid or unusual files to the whole parse, which words the error', () => {
    const text = JSON.stringify({ users })
    for (const bad of [
      text.replace(/}\]}$/, '},]}'),
      text.slice(0, -1),
      '{"users":[{"a":1}}',
      '{"users":[1,2,]}',
      '{"users":[],"users":[]}',
    ])
      expect(read(bad)).toBeUndefined()
  })
})
