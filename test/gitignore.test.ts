/**
 * What `npm pack` and the benchmarks leave in a clone stays out of `git status`: the tarball the
 * README tells a user to pack, and bench/'s own install.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { repoRoot } from './cli-process.js'

const ignored = (path: string) =>
  spawnSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: repoRoot }).status === 0
const inGit =
  spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: repoRoot }).status === 0

describe.skipIf(!inGit)('the clone after npm pack and npm run bench', () => {
  it("git ignores npm pack's tarball and bench/node_modules", () => {
    expect(ignored('partner-sandbox-0.1.0.tgz')).toBe(true)
    expect(ignored('partner-sandbox-1.2.3.tgz')).toBe(true)
    expect(ignored('bench/node_modules/autocannon/package.json')).toBe(true)
  })

  it('still tracks the files beside them', () => {
    expect(ignored('package.json')).toBe(false)
    expect(ignored('bench/package.json')).toBe(false)
    expect(ignored('bench/package-lock.json')).toBe(false)
  })
})
