/**
 * The Testcontainers recipes of docs/containers.md cannot run here (no Docker engine, no JVM,
 * Python or Go toolchain), so this holds them to what they rest on: the image the README
 * builds, the port and health check its Dockerfile declares, and the fixture's credentials.
 * A recipe that drifts from the image (a renamed tag, a moved port, a health check gone)
 * would fail a partner's suite with a timeout, not a message.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { repoRoot } from './cli-process.js'
import { codeBlocks } from './doc-blocks.js'

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8')
const page = read('docs/containers.md')
const dockerfile = read('Dockerfile')
const section = /## Testcontainers\n([\s\S]*?)\n## /.exec(page)?.[1] ?? ''
const recipes = codeBlocks({ path: 'docs/containers.md', text: section })

/** Each language's wait on the image's own HEALTHCHECK, as its library spells it. */
const RECIPES = [
  { lang: 'java', wait: 'Wait.forHealthcheck()', port: '.getMappedPort(4010)' },
  { lang: 'python', wait: 'HealthcheckWaitStrategy()', port: '.get_exposed_port(4010)' },
  { lang: 'go', wait: 'wait.ForHealthCheck()', port: 'PortEndpoint(ctx, "4010/tcp"' },
  { lang: 'js', wait: 'Wait.forHealthCheck()', port: '.getMappedPort(4010)' },
]

describe('the Testcontainers recipes (docs/containers.md)', () => {
  it('the image declares what the recipes wait on: port 4010 and a health check on /_sandbox/health', () => {
    expect(dockerfile).toMatch(/^EXPOSE 4010$/m)
    expect(dockerfile).toMatch(/^ {4}SANDBOX_PORT=4010$/m)
    const health = /^HEALTHCHECK (.*)\\\n\s+CMD (.*)$/m.exec(dockerfile)
    expect(health?.[1]).toContain('--interval=10s')
    expect(health?.[1]).toContain('--start-period=10s')
    expect(health?.[2]).toContain('/_sandbox/health')
    expect(section).toContain('(`GET /_sandbox/health`, every 10 s, after a 10 s start period)')
  })

  it('one recipe per language, each on the image the README builds, waiting on its health check', () => {
    expect(read('README.md')).toContain('docker build -t partner-sandbox .')
    expect(recipes.map((block) => block.lang)).toEqual(RECIPES.map((recipe) => recipe.lang))
    for (const [index, recipe] of RECIPES.entries()) {
      const code = recipes[index]?.code ?? ''
      expect(code, recipe.lang).toMatch(/(["'])partner-sandbox:latest\1/)
      expect(code, recipe.lang).toContain(recipe.wait)
      expect(code, recipe.lang).toContain(recipe.port)
      expect(code, recipe.lang).toContain('/api/v1/partner/me')
    }
  })

  it('the credentials they send, and the table above them, are the default partner’s', () => {
    for (const block of recipes) {
      expect(block.code, block.lang).toContain(DEFAULT_PARTNER.api_key)
      expect(block.code, block.lang).toContain(DEFAULT_PARTNER.api_secret)
    }
    expect(section).toContain(`| \`${DEFAULT_PARTNER.api_key}\``)
    expect(section).toContain(`| \`${DEFAULT_PARTNER.api_secret}\` |`)
  })
})
