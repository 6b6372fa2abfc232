import { resolve } from 'node:path'
import { createSandbox } from '../index.js'
import { Contract } from '../proxy/contract.js'
import { startProxy, upstreamProblem } from '../proxy/proxy-server.js'
import { proxyCommand } from './command-specs.js'
import { helpHint } from './flags.js'

type Fail = (message: string, code?: number) => never

/** The sandbox's own document, built in process: the contract the traffic is held to. */
async function sandboxContract(): Promise<Contract> {
  const sandbox = await createSandbox({ logLevel: 'silent' })
  try {
    return new Contract(
      await (await sandbox.fetch(new Request('http://sandbox/openapi.json'))).json(),
    )
  } finally {
    await sandbox.close()
  }
}

/** `partner-sandbox proxy --upstream URL [--record DIR]`: runs until stopped. */
export async function runProxy(
  values: Record<string, unknown>,
  fail: Fail,
  print: (line: string) => void,
) {
  const upstream = values.upstream as string | undefined
  if (!upstream)
    fail(`proxy needs --upstream URL (the deployment to check)\n${helpHint(proxyCommand)}`, 2)
  const problem = upstreamProblem(upstream)
  if (problem) fail(`--upstream ${upstream}: ${problem}`, 2)
  const port = Number(values.port ?? 4011)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port ${values.port}: must be a whole number from 0 to 65535`, 2)
  const report = resolve((values.report as string | undefined) ?? 'partner-sandbox-drift.jsonl')
  const record = values.record ? resolve(values.record as string) : undefined
  const proxy = await startProxy({
    upstream,
    contract: await sandboxContract(),
    port,
    host: '127.0.0.1',
    report,
    record,
    onDifference: (d) =>
      print(`drift  ${d.operation} ${d.status} ${d.side} ${d.kind} ${d.where}: ${d.message}`),
  })
  print('partner-sandbox proxy ready: each request and answer checked against the contract')
  print(`  API       ${proxy.url}/api/v1`)
  print(`  Upstream  ${new URL(upstream).origin}`)
  print(`  Report    ${report}`)
  if (record) print(`  Record    ${record}`)
  const stop = () => void proxy.close().then(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
