import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../package-root.js'

/**
 * The renderer's files: copied into dist/docs-assets by the build (what the package and the
 * image ship), or read from node_modules in a source checkout that was never built.
 */
const folders = [
  join(packageRoot, 'dist', 'docs-assets'),
  join(packageRoot, 'node_modules', 'swagger-ui-dist'),
]

export const docsAssetTypes: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
}

const cache = new Map<string, Buffer>()

/** The bytes of one asset (read once, then kept: 1.5 MB served on every docs visit). */
export function docsAsset(name: string): Buffer | undefined {
  if (!(name in docsAssetTypes)) return undefined
  let bytes = cache.get(name)
  if (!bytes) {
    const folder = folders.find((f) => existsSync(join(f, name)))
    if (!folder) return undefined
    bytes = readFileSync(join(folder, name))
    cache.set(name, bytes)
  }
  return bytes
}
