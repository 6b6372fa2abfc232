/**
 * No orphans: when the process that started the CLI dies without passing the signal on (as a
 * killed `npx` or a CI step's shell may), the CLI notices and stops gracefully: the data file
 * is compacted, the port freed. Tested over a real process tree: sh → CLI.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { cleanEnv, repoRoot } from './cli-process.js'

const dirs: string[] = []
const pids: number[] = []

afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Whether `pid` still runs (a zombie waiting for its new parent to reap it counts as gone). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

describe('CLI whose parent dies', () => {
  it('stops gracefully by itself, within seconds, leaving its data file compacted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-parent-'))
    dirs.push(dir)
    const data = join(dir, 'state.json')
    // The shell starts the CLI in the background and waits; SIGTERM ends the shell at once
    // (it does not forward signals to background jobs), as a killed npx may.
    const cli = `node --import tsx bin/partner-sandbox.ts --port 0 --data ${data}`
    const shell = spawn('sh', ['-c', `${cli} & echo "pid=$!"; wait`], {
      cwd: repoRoot,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    shell.stdout.on('data', (chunk) => {
      out += chunk
    })
    shell.stderr.on('data', (chunk) => {
      err += chunk
    })
    // The CLI keeps the pipes open after the shell is gone: their end is the CLI's exit.
    const pipesClosed = new Promise<void>((resolve) => shell.stdout.once('close', resolve))

    const deadline = Date.now() + 20_000
    while (!/API\s+http:\/\/127\.0\.0\.1:\d+/.test(out) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const pid = Number(/pid=(\d+)/.exec(out)?.[1])
    const url = /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]
    expect(url, `stdout: ${out}\nstderr: ${err}`).toBeDefined()
    pids.push(pid)
    const me = await fetch(`${url}/api/v1/partner/me`, {
      headers: {
        'x-partner-key': DEFAULT_PARTNER.api_key,
        'x-partner-secret': DEFAULT_PARTNER.api_secret,
      },
    })
    expect(me.status).toBe(200)

    shell.kill('SIGTERM')
    // The CLI's exit closes the pipes; without it the test's own timeout fails the test.
    await pipesClosed
    expect(running(pid)).toBe(false)
    expect(err).toContain('parent process exited: stopping')
    expect(existsSync(data)).toBe(true)
    await expect(fetch(`${url}/_sandbox/health`)).rejects.toThrow()
  })
})
