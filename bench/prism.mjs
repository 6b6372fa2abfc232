// Prism (@stoplight/prism-cli, in bench/package.json) mocking the sandbox's own /openapi.json: the
// peer the sandbox is compared with for throughput and cold start. Prism answers from the
// document's examples after validating the request, and keeps no state.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSandbox } from '../dist/bundle/index.js'
import { assertLoopback, freePort, root, spawnNode, waitForStdout } from './lib.mjs'

const PRISM = join(root, 'bench', 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js')
let document

/** The sandbox's OpenAPI document, written once to a temporary file. */
export async function openApiFile() {
  if (document) return document
  const sandbox = await createSandbox({ logLevel: 'silent' })
  const res = await sandbox.request('/openapi.json')
  await sandbox.close()
  document = join(mkdtempSync(join(tmpdir(), 'partner-sandbox-prism-')), 'openapi.json')
  writeFileSync(document, await res.text())
  return document
}

/** Spawns `prism mock` on a free port; resolves with { child, url } once it listens. */
export async function startPrism() {
  const file = await openApiFile()
  const port = await freePort()
  const child = spawnNode([PRISM, 'mock', '-h', '127.0.0.1', '-p', String(port), file])
  await waitForStdout(child, /listening on http:\/\/127\.0\.0\.1:\d+/, 30_000)
  return { child, url: assertLoopback(`http://127.0.0.1:${port}`) }
}

/** The command line, for cold-start runs that time the spawn themselves. */
export async function prismArgs() {
  const file = await openApiFile()
  return [PRISM, 'mock', '-h', '127.0.0.1', '-p', String(await freePort()), file]
}
