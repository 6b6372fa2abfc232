// The sandbox under test for http-throughput, built from dist/ exactly as a user would run it
// programmatically, with rate limiting off. Prints `READY <url>` once listening; exits when
// stdin (its lifeline to the bench) closes.
import { startSandbox } from '../../dist/bundle/index.js'

const sandbox = await startSandbox({ port: 0, logLevel: 'silent', rateLimit: 'off' })
process.stdout.write(`READY ${sandbox.url}\n`)

const stop = async () => {
  await sandbox.close()
  process.exit(0)
}
process.stdin.on('end', stop)
process.stdin.resume()
process.on('SIGTERM', stop)
