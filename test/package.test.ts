/**
 * The package as a user gets it: `npm pack`, installed from the local tarball into an empty
 * folder (offline: the bundle inlines every dependency, so there is nothing to fetch), then
 * `npx partner-sandbox` there serves the API, and a TypeScript suite there type-checks with
 * every type real. Also: the tarball holds no source maps and no install script, and killing
 * that npx leaves no sandbox behind.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { cleanEnv, repoRoot } from './cli-process.js'
import { allCodeBlocks } from './doc-blocks.js'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
let dir: string
let tarball: string
let installed: string
const children: ChildProcess[] = []

/** npm offline, quiet, and not told by the outer `npm test` which package it runs in. */
const npmEnv = () => {
  const env = cleanEnv({ npm_config_offline: 'true', npm_config_audit: 'false' })
  for (const name of Object.keys(env)) if (name.startsWith('npm_package_')) delete env[name]
  return env
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-pack-'))
  // `npm pack` runs `prepack` (the full build), as `npm publish` would.
  const packed = execFileSync(npm, ['pack', '--json', '--pack-destination', dir], {
    cwd: repoRoot,
    env: npmEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const json = packed.slice(packed.indexOf('['))
  tarball = join(dir, JSON.parse(json)[0].filename)
  installed = join(dir, 'app')
  execFileSync('mkdir', [installed])
  execFileSync(npm, ['install', '--no-fund', tarball], {
    cwd: installed,
    env: npmEnv(),
    stdio: 'ignore',
  })
}, 240_000)

afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const listFiles = (root: string): string[] =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))

describe('the packed package', () => {
  it('installs alone: no dependency, no install script, no source map, the assets it reads', () => {
    const pkgDir = join(installed, 'node_modules', 'partner-sandbox')
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'))
    expect(manifest.dependencies ?? {}).toEqual({})
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(manifest.scripts?.[script], script).toBeUndefined()
    expect(readdirSync(join(installed, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual([
      'partner-sandbox',
    ])
    const files = listFiles(pkgDir)
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([])
    expect(files).toContain('dist/bundle/cli.js')
    expect(files).toContain('fixtures/default.json')
    expect(files).toContain('scenarios/default.json')
    // The code ships once, as the bundle; the types as one declaration file per entry point
    // (the package's, and the generated partner API types of partner-sandbox/openapi).
    expect(files.filter((f) => f.startsWith('dist/src/'))).toEqual([])
    expect(files.filter((f) => f.endsWith('.d.ts')).sort()).toEqual([
      'dist/openapi/partner-api.d.ts',
      'dist/types/index.d.ts',
    ])
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false)
    // The examples do not ship.
    expect(files.some((f) => f.startsWith('examples/'))).toBe(false)
    // The README's links work in the installed package too: every page it links ships.
    const readme = readFileSync(join(pkgDir, 'README.md'), 'utf8')
    const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1] as string)
    expect(linked.length).toBeGreaterThanOrEqual(15)
    for (const page of linked) expect(files, page).toContain(page)
  })

  it('serves the API through `npx partner-sandbox`, and killing npx leaves no sandbox', async () => {
    const child = spawn('npx', ['partner-sandbox', '--port', '0', '--log-level', 'silent'], {
      cwd: installed,
      env: npmEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    let out = ''
    child.stdout?.on('data', (chunk) => {
      out += chunk
    })
    child.stderr?.on('data', (chunk) => {
      out += chunk
    })
    const banner = /API\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/
    const deadline = Date.now() + 30_000
    while (!banner.test(out) && Date.now() < deadline && child.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const url = banner.exec(out)?.[1]
    expect(url, out).toBeDefined()

    const me = await fetch(`${url}/api/v1/partner/me`, {
      headers: {
        'x-partner-key': DEFAULT_PARTNER.api_key,
        'x-partner-secret': DEFAULT_PARTNER.api_secret,
      },
    })
    expect(me.status).toBe(200)
    expect(((await me.json()) as { partner: { api_key: string } }).partner.api_key).toBe(
      DEFAULT_PARTNER.api_key,
    )
    const docs = await fetch(`${url}/docs`)
    expect(docs.status).toBe(200)
    // The docs renderer's files ship in the package (no node_modules to fall back on here).
    const renderer = await fetch(`${url}/docs/assets/swagger-ui-bundle.js`)
    expect(renderer.status).toBe(200)
    expect((await renderer.arrayBuffer()).byteLength).toBeGreaterThan(100_000)

    child.kill('SIGTERM')
    // Gone: the port refuses connections (the deadline only ends a wait that would hang).
    const stopBy = Date.now() + 30_000
    let up = true
    while (up && Date.now() < stopBy) {
      up = await fetch(`${url}/_sandbox/health`).then(
        () => true,
        () => false,
      )
      if (up) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(up, 'the sandbox still answers after npx was killed').toBe(false)
  }, 60_000)

  it("runs the README's tarball command without installing, from an empty folder", () => {
    // As pasted: the README's file name is the one `npm pack` writes, and its npx line runs the
    // tarball's CLI (npx given the bare file path would try to execute the .tgz itself).
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')
    const name = tarball.slice(dir.length + 1)
    expect(readme).toContain(`\`npm pack\` builds and writes \`${name}\``)
    const command = /without installing, `(npx [^`]+)`/.exec(readme)?.[1]
    expect(command).toContain(`/path/to/${name}`)
    const empty = mkdtempSync(join(dir, 'empty-'))
    // A cache of its own: the npx folder it makes stays in this test's directory.
    const env = { ...npmEnv(), npm_config_cache: join(dir, 'npx-cache') }
    const run = spawnSync(
      'sh',
      ['-c', `${(command as string).replace(`/path/to/${name}`, tarball)} --version`],
      { cwd: empty, env, encoding: 'utf8', timeout: 60_000 },
    )
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'))
    expect(run.stdout.trim(), run.stderr).toBe(version)
    expect(run.status).toBe(0)
    expect(readdirSync(empty)).toEqual([])
  }, 60_000)

  it('types a TypeScript suite fully: strict, lib check on, no `any` (test/consumer/consumer.ts)', () => {
    const project = consumerProject()
    cpSync(join(repoRoot, 'test', 'consumer', 'consumer.ts'), join(project, 'consumer.ts'))

    // Node's own resolution, and a bundler's (Vite, esbuild, Playwright's loader).
    const resolutions = {
      nodenext: { module: 'NodeNext', moduleResolution: 'NodeNext' },
      bundler: { module: 'Preserve', moduleResolution: 'Bundler' },
    }
    for (const [name, resolution] of Object.entries(resolutions)) {
      const compilerOptions = {
        ...resolution,
        target: 'ES2022',
        lib: ['ES2023'],
        types: ['node'],
        strict: true,
        noImplicitAny: true,
        skipLibCheck: false,
        noEmit: true,
      }
      const config = join(project, `tsconfig.${name}.json`)
      writeFileSync(config, JSON.stringify({ compilerOptions, files: ['consumer.ts'] }, null, 2))
      const tsc = runTsc(project, config)
      expect(`${tsc.stdout}${tsc.stderr}`, `tsc with ${name} resolution`).toBe('')
      expect(tsc.status).toBe(0)
    }
  }, 60_000)

  it('compiles every TypeScript block of the README and docs/ under --strict', () => {
    // The blocks as a reader pastes them, each a module of its own, against the installed
    // package. Fragments name a few values they assume (an email, a started sandbox): those are
    // declared once, globally (test/consumer/doc-globals.d.ts), so the blocks stay as written.
    const project = consumerProject()
    for (const name of [
      'openapi-fetch',
      'openapi-typescript-helpers',
      '@playwright/test',
      'playwright',
    ])
      linkModule(project, name)
    const blocks = allCodeBlocks().filter((block) => block.lang === 'ts')
    expect(blocks.length).toBeGreaterThanOrEqual(6)
    const folder = join(project, 'doc-blocks')
    mkdirSync(folder, { recursive: true })
    const files = blocks.map((block) => {
      const file = `${block.file.replace(/[/.]/g, '_')}_${block.line}.ts`
      // `export {}` keeps a block without imports a module of its own.
      writeFileSync(join(folder, file), `${block.code}\nexport {}\n`)
      return `doc-blocks/${file}`
    })
    for (const shim of ['doc-globals.d.ts', 'msw.d.ts'])
      cpSync(join(repoRoot, 'test', 'consumer', shim), join(project, shim))
    const compilerOptions = {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    }
    const config = join(project, 'tsconfig.docs.json')
    writeFileSync(
      config,
      JSON.stringify({ compilerOptions, files: ['doc-globals.d.ts', 'msw.d.ts', ...files] }),
    )
    const tsc = runTsc(project, config)
    // Each error names its block's file and line (doc-blocks/README_md_<line>.ts).
    expect(`${tsc.stdout}${tsc.stderr}`).toBe('')
    expect(tsc.status).toBe(0)
  }, 60_000)
})

let consumer: string | undefined
/**
 * A project outside the repository (module resolution cannot climb into its node_modules)
 * holding what a user's would: the package as installed, and @types/node.
 */
function consumerProject(): string {
  if (consumer) return consumer
  const project = join(dir, 'consumer')
  const modules = join(project, 'node_modules')
  mkdirSync(join(modules, '@types'), { recursive: true })
  cpSync(join(installed, 'node_modules', 'partner-sandbox'), join(modules, 'partner-sandbox'), {
    recursive: true,
  })
  const typesNode = join(repoRoot, 'node_modules', '@types', 'node')
  cpSync(typesNode, join(modules, '@types', 'node'), { recursive: true })
  const nodeTypesDeps = JSON.parse(readFileSync(join(typesNode, 'package.json'), 'utf8'))
  for (const name of Object.keys(nodeTypesDeps.dependencies ?? {}))
    cpSync(join(repoRoot, 'node_modules', name), join(modules, name), { recursive: true })
  writeFileSync(join(project, 'package.json'), '{ "private": true, "type": "module" }\n')
  consumer = project
  return project
}

/** A library the docs use (openapi-fetch, Playwright), linked from the repository's install. */
function linkModule(project: string, name: string): void {
  const target = join(project, 'node_modules', name)
  mkdirSync(dirname(target), { recursive: true })
  if (!existsSync(target)) symlinkSync(join(repoRoot, 'node_modules', name), target, 'dir')
}

const runTsc = (project: string, config: string) =>
  spawnSync(
    process.execPath,
    [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config],
    { cwd: project, encoding: 'utf8' },
  )
