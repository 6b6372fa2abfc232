import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseScenario } from '../src/scenarios/loader.js'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { repoRoot } from './cli-process.js'
import { docFiles } from './doc-blocks.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const scenariosPage = readFileSync(new URL('../docs/scenarios.md', import.meta.url), 'utf8')

describe('the README and docs/ stay true', () => {
  it('the scenario example (one example per decision) is a valid scenario', () => {
    const block = /One example per decision:\s*```json\n([\s\S]*?)```/.exec(scenariosPage)?.[1]
    expect(block).toBeDefined()
    const scenario = parseScenario(JSON.parse(block as string), 'docs/scenarios.md')
    expect(Object.keys(scenario).sort()).toEqual(
      [
        'clock',
        'deposits',
        'description',
        'disputes',
        'rules',
        'funding',
        'name',
        'onboarding',
        'otp',
        'purchases',
        'rate_limit',
        'webhooks',
      ].sort(),
    )
  })

  it('prints the default credentials the fixtures really hold', () => {
    expect(readme).toContain(DEFAULT_PARTNER.api_key)
    expect(readme).toContain(DEFAULT_PARTNER.api_secret)
  })
})

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

const anchors = (text: string) =>
  new Set(
    text
      .replace(/```[\s\S]*?```/g, '')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => slug(line.replace(/^#+ /, ''))),
  )

describe('the README is a first screen, the reference is in docs/', () => {
  const files = docFiles()
  const pages = files.filter((file) => file.path.startsWith('docs/')).map((file) => file.path)

  it('stays under 300 lines and links every page of docs/', () => {
    expect(readme.split('\n').length).toBeLessThan(300)
    expect(pages.length).toBeGreaterThanOrEqual(15)
    for (const page of pages) expect(readme, page).toContain(`](${page})`)
  })

  it('starts without the registry: the quick start never runs the bare package name outside a clone', () => {
    const quickStart = /## Quick start\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? ''
    expect(quickStart).toContain('npm install')
    expect(quickStart).toContain('npm pack')
    expect(quickStart).toContain('docker build -t partner-sandbox .')
    // Every command `npx partner-sandbox` in it says it runs inside the clone or the installed copy.
    const commands = [...quickStart.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('')
    const npxLines = commands.split('\n').filter((l) => /npx partner-sandbox\b/.test(l))
    expect(npxLines.length).toBeGreaterThanOrEqual(2)
    for (const line of npxLines) expect(line, line).toMatch(/inside the clone|installed in/)
  })

  it('links only to files that exist, and to headings that exist in them', () => {
    const texts = new Map(files.map((file) => [file.path, file.text]))
    for (const file of files) {
      const body = file.text.replace(/```[\s\S]*?```/g, '')
      for (const [, target] of body.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target as string)) continue
        const [path, anchor] = (target as string).split('#')
        const resolved = path
          ? join(dirname(file.path), path as string).replaceAll('\\', '/')
          : file.path
        expect(existsSync(join(repoRoot, resolved)), `${file.path} -> ${target}`).toBe(true)
        if (anchor) {
          const text = texts.get(resolved) ?? ''
          expect(anchors(text).has(anchor), `${file.path} -> ${target}`).toBe(true)
        }
      }
    }
  })
})
