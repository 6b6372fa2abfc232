// Generates the partner API's TypeScript types (dist/openapi/partner-api.d.ts, exported as
// `partner-sandbox/openapi`) from the sandbox's own /openapi.json, at build time, with
// openapi-typescript. A suite then gets typed requests and bodies with openapi-fetch:
//   import createClient from 'openapi-fetch'
//   import type { paths } from 'partner-sandbox/openapi'
import { mkdirSync, writeFileSync } from 'node:fs'
import openapiTS, { astToString } from 'openapi-typescript'
import { createSandbox } from '../dist/bundle/index.js'

const sandbox = await createSandbox({ logLevel: 'silent' })
const doc = await (await sandbox.app.request('/openapi.json')).json()
await sandbox.close()
const ast = await openapiTS(doc, { exportType: true, alphabetize: true })
const header = `/**\n * Types of the partner-sandbox API (${doc.info.title} ${doc.info.version}), generated from\n * its /openapi.json by openapi-typescript at build time. Do not edit.\n */\n`
mkdirSync('dist/openapi', { recursive: true })
writeFileSync('dist/openapi/partner-api.d.ts', header + astToString(ast))
