// Bundles the CLI and the library entry into dist/bundle/ with esbuild (shared code in one
// chunk). One file instead of hundreds of modules halves the import time, which is most of
// the cold start; `tsc` still emits dist/src, from which scripts/public-types.mjs makes the
// published declarations.
//
// What the published package holds (package.json `files`, checked by test/package.test.ts):
// - the bundle, which inlines every runtime dependency: hence no `dependencies` at all (they
//   are devDependencies), and nothing installed twice;
// - no source maps (the bundle is not minified: stack traces name the real functions, and
//   esbuild's `// src/...` comments say where each part comes from);
// - the type declarations, one self-contained file (dist/types/index.d.ts), and the partner
//   API's generated types (dist/openapi/partner-api.d.ts);
// - runtime static assets, read relative to the package root (src/package-root.ts):
//   fixtures/, scenarios/ and dist/docs-assets (made by scripts/copy-docs-assets.mjs).
//   A NEW ASSET READ AT RUNTIME (pages, templates, docs) must be listed in `files` in
//   package.json (and kept out of .dockerignore); one made at build time must be made by
//   `npm run bundle` (this script and its companions), which `npm run build`, `npm pack` and
//   the Dockerfile all run. Otherwise the installed package and the Docker image (which
//   installs the packed tarball) will miss it: test/package.test.ts and
//   scripts/check-image.sh check what they serve.
// - bin/partner-sandbox.mjs, the command: it runs dist/bundle/cli.js, building it first in a
//   source checkout, since no install script (`prepare`) runs on `npm install` any more.
import { rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'

// --outdir: the tests' own build of the CLI (test/cli-build.ts) goes to dist/test-cli, so a
// `npm pack` under way in another test file never deletes the bundle a test is running.
const { outdir } = parseArgs({
  options: { outdir: { type: 'string', default: 'dist/bundle' } },
}).values

// Chunk names carry a content hash: without a clean folder every build would leave the
// previous chunks behind (and `files` would publish them).
rmSync(outdir, { recursive: true, force: true })

await build({
  entryPoints: { cli: 'bin/partner-sandbox.ts', index: 'src/index.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  chunkNames: 'chunks/[name]-[hash]',
  // Some bundled CommonJS code calls require(); ESM has none, so give it one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
})
