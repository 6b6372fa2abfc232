// Bundles the CLI and the library entry into dist/bundle/ with esbuild (shared code in one
// chunk). One file instead of hundreds of modules halves the import time, which is most of
// the cold start; `tsc` still emits dist/src for the type declarations.
import { rmSync } from 'node:fs'
import { build } from 'esbuild'

// Chunk names carry a content hash: without a clean folder every build would leave the
// previous chunks behind (and `files` would publish them).
rmSync('dist/bundle', { recursive: true, force: true })

await build({
  entryPoints: { cli: 'bin/partner-sandbox.ts', index: 'src/index.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  // Some bundled CommonJS code calls require(); ESM has none, so give it one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
})
