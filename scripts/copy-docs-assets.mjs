// Copies the Swagger UI files /docs serves into dist/docs-assets at build, so the published
// package and the Docker image carry them (no CDN, no node_modules lookup at run time).
import { copyFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
const to = 'dist/docs-assets'
mkdirSync(to, { recursive: true })
for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE'])
  copyFileSync(join(from, file), join(to, file))
