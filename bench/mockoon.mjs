// Mockoon's CLI (@mockoon/cli, in bench/package.json) serving the sandbox's own answers as static
// routes: the other mock server a user would pick, beside Prism. Its environment is built
// with Mockoon's own builders (@mockoon/commons), one GET route per page, with Mockoon's
// defaults otherwise (templating on, its request log on stdout); `-X` only keeps it from
// also writing log files under the home folder.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assertLoopback, freePort, httpGet, root, sleep, spawnNode, waitForStdout } from './lib.mjs'

const require = createRequire(import.meta.url)
const MOCKOON = join(root, 'bench', 'node_modules', '@mockoon', 'cli', 'bin', 'run.js')

/** An environment file answering each `pages` path (no leading slash) with its body. */
function environmentFile(pages, port) {
  const { BuildEnvironment, BuildHTTPRoute, BuildRouteResponse } = require('@mockoon/commons')
  const environment = BuildEnvironment({ hasDefaultHeader: true, hasDefaultRoute: false, port })
  environment.name = 'partner-sandbox bench'
  environment.hostname = '127.0.0.1'
  for (const [path, body] of Object.entries(pages)) {
    const route = {
      ...BuildHTTPRoute(false),
      method: 'get',
      endpoint: path.replace(/^\//, ''),
      responses: [
        {
          ...BuildRouteResponse(),
          body,
          headers: [{ key: 'Content-Type', value: 'application/json' }],
          default: true,
        },
      ],
    }
    environment.routes.push(route)
    environment.rootChildren.push({ type: 'route', uuid: route.uuid })
  }
  const file = join(mkdtempSync(join(tmpdir(), 'partner-sandbox-mockoon-')), 'environment.json')
  writeFileSync(file, JSON.stringify(environment))
  return file
}

/** Spawns `mockoon-cli start`; resolves with { child, url } once `probe` answers 200. */
export async function startMockoon(pages, probe) {
  const port = await freePort()
  const file = environmentFile(pages, port)
  const child = spawnNode([MOCKOON, 'start', '-d', file, '-p', String(port), '-X'])
  await waitForStdout(child, /started on port/i, 60_000)
  const url = assertLoopback(`http://127.0.0.1:${port}`)
  for (let i = 0; i < 50; i++) {
    const res = await httpGet(url + probe).catch(() => undefined)
    if (res?.status === 200) return { child, url }
    await sleep(100)
  }
  throw new Error(`Mockoon did not answer 200 on ${probe}: ${child.stderrText}`)
}
