/**
 * A test PostgreSQL server stops when the test runner that started it dies without its
 * teardown (kill -9, a CI time limit): its watchdog (test/postgres-watchdog.mjs) stops the
 * server and removes its folder, so no server is left running in a temporary folder.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { repoRoot } from './cli-process.js'
import { postgresBin } from './postgres-server.js'

/** Whether something accepts connections on 127.0.0.1:`port`. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

// A runner: starts a server the way the test setup does, prints it, then waits to be killed.
const runnerScript = `
import { startPostgres } from './test/postgres-server.ts'
const server = await startPostgres()
console.log(JSON.stringify({ url: server.url, dir: server.dir }))
setInterval(() => {}, 60_000)
`

let cleanup: (() => void) | undefined
afterEach(() => cleanup?.())

describe.skipIf(!postgresBin())('a test PostgreSQL server whose runner dies', () => {
  it('stops, and its folder goes, once the runner is killed with SIGKILL', async () => {
    const runner = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', runnerScript],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    cleanup = () => runner.kill('SIGKILL')
    const started = await new Promise<{ url: string; dir: string }>((resolve, reject) => {
      let out = ''
      runner.stdout.on('data', (chunk) => {
        out += chunk
        if (out.includes('\n')) resolve(JSON.parse(out))
      })
      runner.once('exit', (code) => reject(new Error(`the runner exited (${code}): ${out}`)))
    })
    const port = Number(new URL(started.url).port)
    expect(await listening(port)).toBe(true)
    expect(existsSync(started.dir)).toBe(true)

    const gone = new Promise((resolve) => runner.once('exit', resolve))
    runner.kill('SIGKILL')
    await gone
    await expect.poll(() => listening(port), { timeout: 20_000, interval: 200 }).toBe(false)
    await expect.poll(() => existsSync(started.dir), { timeout: 20_000, interval: 200 }).toBe(false)
  }, 60_000)
})
