#!/usr/bin/env node
// The `partner-sandbox` command. The published package ships the esbuild bundle
// (dist/bundle/cli.js) and nothing to build, so this just runs it. In a source checkout
// (src/ next to this folder), the bundle is built on first run and rebuilt when a source is
// newer: `npm install` runs no script, yet `npx partner-sandbox` works on a fresh clone.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const bundle = join(root, 'dist', 'bundle', 'cli.js')

/** Newest modification time under `path` (a file or a folder), 0 when missing. */
function newest(path) {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  let time = 0
  for (const entry of readdirSync(path)) time = Math.max(time, newest(join(path, entry)))
  return time
}

function stale() {
  const built = newest(bundle)
  if (built === 0) return true
  const sources = ['src', 'bin/partner-sandbox.ts', 'scripts/bundle.mjs', 'package-lock.json']
  return sources.some((source) => newest(join(root, source)) > built)
}

if (existsSync(join(root, 'src')) && stale()) {
  process.stderr.write('partner-sandbox: building dist/bundle from the sources (source checkout)\n')
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (built.status !== 0) {
    process.stderr.write(
      'partner-sandbox: the build failed; run `npm install` (esbuild is a dev dependency) and retry\n',
    )
    process.exit(1)
  }
}

await import(new URL('../dist/bundle/cli.js', import.meta.url).href)
