import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The folder holding our package.json, whether running from `src/` (tsx) or `dist/src/`. */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = join(dir, 'package.json')
    if (
      existsSync(candidate) &&
      JSON.parse(readFileSync(candidate, 'utf8')).name === 'partner-sandbox'
    ) {
      return dir
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error('partner-sandbox: cannot find the package folder')
    dir = parent
  }
}

export const packageRoot = findRoot()
export const packageVersion: string = JSON.parse(
  readFileSync(join(packageRoot, 'package.json'), 'utf8'),
).version
