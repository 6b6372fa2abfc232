import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_PARTNER } from '../src/store/default-credentials.js'
import { type CliProcess, spawnCli, stopCliProcesses } from './cli-process.js'

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'partner-sandbox-cli-'))
})

afterEach(async () => {
  await stopCliProcesses()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs a command that is expected to end by itself (bounded by the test timeout). */
async function run(args: string[], env: Record<string, string> = {}) {
  const { output, exited } = spawnCli(args, env)
  const { code } = await exited
  return { code, ...output }
}

/** Waits until `test` holds for the child's output; fails with the output after `timeoutMs`. */
function waitFor(
  cli: ReturnType<typeof spawnCli>,
  test: (output: CliProcess['output']) => boolean,
  timeoutMs = 15_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!test(cli.output)) return
      clearTimeout(timer)
      cli.child.stdout?.off('data', check)
      cli.child.stderr?.off('data', check)
      resolve()
    }
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `timed out after ${timeoutMs} ms\nstdout: ${cli.output.stdout}\nstderr: ${cli.output.stderr}`,
          ),
        ),
      timeoutMs,
    )
    cli.child.stdout?.on('data', check)
    cli.child.stderr?.on('data', check)
    void cli.exited.then(() => {
      clearTimeout(timer)
      if (test(cli.output)) resolve()
      else
        reject(
          new Error(`exited early\nstdout: ${cli.output.stdout}\nstderr: ${cli.output.stderr}`),
        )
    })
    check()
  })
}

const apiUrl = /^ {2}API {7}(http:\/\/127\.0\.0\.1:(\d+))\/api\/v1$/m

/** Starts a long-running sandbox and resolves with its base URL once the banner is out. */
async function startServer(args: string[], env: Record<string, string> = {}) {
  const cli = spawnCli(args, env)
  await waitFor(cli, (o) => apiUrl.test(o.stdout))
  const match = apiUrl.exec(cli.output.stdout) as RegExpExecArray
  return { ...cli, url: match[1] as string, port: Number(match[2]) }
}

const auth = {
  'X-Partner-Key': DEFAULT_PARTNER.api_key,
  'X-Partner-Secret': DEFAULT_PARTNER.api_secret,
}

describe('CLI: commands and flags', () => {
  it('--help exits 0 and lists every flag', async () => {
    const { code, stdout, stderr } = await run(['--help'])
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toMatch(/^partner-sandbox \d+\.\d+\.\d+: /)
    for (const flag of [
      '--port',
      '--host',
      '--data',
      '--fixtures',
      '--scenario',
      '--seed',
      '--rate-limit',
      '--log-level',
      '--admin-token',
      '--public-url',
      '--fsync',
      '--help',
      '--version',
    ]) {
      expect(stdout).toContain(`${flag} `)
    }
    expect(stdout).toContain('partner-sandbox scenarios')
  })

  it('a bad flag value exits 2 naming the flag as typed and what it must be', async () => {
    const { code, stdout, stderr } = await run([
      '--port',
      'abc',
      '--log-level',
      'loud',
      '--rate-limit',
      'fast',
    ])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('--port abc: must be a number (got "abc")')
    // A union names each form it takes.
    expect(stderr).toContain('--rate-limit fast: must be "off" or a number (got "fast")')
    expect(stderr).toContain('--log-level loud: must be one of "silent", "error"')
    expect(stderr).not.toMatch(/Invalid input|Invalid option|logLevel/)
    const env = await run([], { SANDBOX_PORT: '99999' })
    expect(env.code).toBe(2)
    expect(env.stderr).toContain('SANDBOX_PORT=99999: must be at most 65535')
  })

  it('an unknown flag exits 2 with a message pointing at --help', async () => {
    const { code, stdout, stderr } = await run(['--no-such-flag'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/^partner-sandbox: /)
    expect(stderr).toContain('--no-such-flag')
    expect(stderr).toContain('--help')
  })

  it('a mistyped flag or command exits 2 naming it and the nearest known one', async () => {
    const [flag, listenFlag, command] = await Promise.all([
      run(['--prot', '3000']),
      run(['listen', '--forwad-to', 'http://localhost:3000/webhooks']),
      run(['listne']),
    ])
    expect(flag).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'partner-sandbox: unknown option --prot; did you mean --port?\nRun partner-sandbox --help for the options.\n',
    })
    expect(listenFlag).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'partner-sandbox: unknown option --forwad-to for listen; did you mean --forward-to?\nRun partner-sandbox listen --help for its options.\n',
    })
    expect(command.code).toBe(2)
    expect(command.stderr).toContain('unknown command "listne"; did you mean listen?')
  })

  it('every subcommand takes --help and -h, and help COMMAND says the same', async () => {
    const [listen, trigger, scenarios, help] = await Promise.all([
      run(['listen', '--help']),
      run(['trigger', '-h']),
      run(['scenarios', '--help']),
      run(['help', 'listen']),
    ])
    for (const [name, result] of [
      ['listen', listen],
      ['trigger', trigger],
      ['scenarios', scenarios],
    ] as const) {
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toBe('')
      expect(result.stdout).toMatch(new RegExp(`^partner-sandbox ${name}: `))
      expect(result.stdout).toContain(`Usage:\n  partner-sandbox ${name}`)
      expect(result.stdout).toMatch(new RegExp(`Examples?:\\n {2}partner-sandbox ${name}`))
    }
    expect(listen.stdout).toMatch(/^ {2}--forward-to URL +your app's webhook route/m)
    expect(trigger.stdout).toMatch(/^ {2}--partner KEY +the partner, by its API key/m)
    expect(help).toMatchObject({ code: 0, stdout: listen.stdout })
  })

  it('an unknown command exits 2 with a message', async () => {
    const { code, stderr } = await run(['serve-me'])
    expect(code).toBe(2)
    expect(stderr).toContain('unknown command "serve-me"')
  })

  it('`scenarios` lists the bundled scenarios, "default" among them', async () => {
    const { code, stdout } = await run(['scenarios'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^default +\S/m)
  })

  it('refuses a corrupt --data file: exit 1, a message naming the file, the file unchanged', async () => {
    const file = join(dir, 'state.json')
    const corrupt = '{"format":"partner-sandbox","schema_version":1,'
    writeFileSync(file, corrupt)

    const { code, stdout, stderr } = await run(['--data', file, '--port', '0'])
    expect(code).toBe(1)
    expect(stdout).toBe('') // no banner: it never started
    expect(stderr).toContain(`partner-sandbox: ${file} is not valid JSON`)
    expect(stderr).not.toMatch(/\n\s+at /) // a message, not a stack trace
    expect(readFileSync(file, 'utf8')).toBe(corrupt)
    expect(readdirSync(dir)).toEqual(['state.json'])
  })

  it('an unknown --scenario exits 1 naming the bundled ones', async () => {
    const { code, stdout, stderr } = await run(['--scenario', 'no-such-scenario', '--port', '0'])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('unknown scenario "no-such-scenario"')
    expect(stderr).toMatch(/bundled scenarios: .*\bdefault\b/)
  })
})

describe('CLI: a running sandbox', () => {
  it('prints a banner with the default key, secret and a working docs URL', async () => {
    const server = await startServer(['--port', '0', '--log-level', 'silent'])
    const banner = server.output.stdout
    expect(banner).toContain(`X-Partner-Key     ${DEFAULT_PARTNER.api_key}`)
    expect(banner).toContain(`X-Partner-Secret  ${DEFAULT_PARTNER.api_secret}`)
    expect(banner).toContain(`  Docs      ${server.url}/docs `)
    expect(banner).toContain('Storage   memory')

    const docs = await fetch(`${server.url}/docs`)
    expect(docs.status).toBe(200)
    expect(docs.headers.get('content-type')).toMatch(/text\/html/)
    // The key and secret the banner shows are accepted.
    const me = await fetch(`${server.url}/api/v1/partner/me`, { headers: auth })
    expect(me.status).toBe(200)
  })

  it('reads SANDBOX_PORT and SANDBOX_LOG_LEVEL from the environment', async () => {
    const file = join(dir, 'env.json')
    const server = await startServer([], {
      SANDBOX_PORT: '0',
      SANDBOX_LOG_LEVEL: 'silent',
      SANDBOX_DATA: file,
    })
    // Port 0 picked a free port instead of the default 4010.
    expect(server.port).not.toBe(4010)
    expect(server.port).toBeGreaterThan(0)
    expect(server.output.stdout).toContain(`Storage   ${file}`)
    expect(existsSync(file)).toBe(true)

    const res = await fetch(`${server.url}/api/v1/partner/me`, { headers: auth })
    expect(res.status).toBe(200)
    server.child.kill('SIGTERM')
    expect((await server.exited).code).toBe(0)
    // Silent: not even the request log or the stop message reached stderr.
    expect(server.output.stderr).toBe('')
  })

  it('logs each request on stderr at the default level, never with the secret', async () => {
    const server = await startServer(['--port', '0'])
    const ok = await fetch(`${server.url}/api/v1/partner/me?trace=1`, { headers: auth })
    expect(ok.status).toBe(200)
    const wrongSecret = 'sk_test_this_is_a_wrong_secret_value'
    const denied = await fetch(`${server.url}/api/v1/partner/me`, {
      headers: { ...auth, 'X-Partner-Secret': wrongSecret },
    })
    expect(denied.status).toBe(401)

    await waitFor(server, (o) =>
      /info {2}GET \/api\/v1\/partner\/me 401 .* partner=- id=req_\w+/.test(o.stderr),
    )
    const log = server.output.stderr
    expect(log).toMatch(
      /info {2}GET \/api\/v1\/partner\/me 200 [\d.]+ms partner=acme-fintech id=req_/,
    )
    expect(log).not.toContain(DEFAULT_PARTNER.api_secret)
    expect(log).not.toContain(wrongSecret)
    // The banner (stdout) is where the secret is shown, on purpose; the log is not.
    expect(server.output.stdout).toContain(DEFAULT_PARTNER.api_secret)
  })

  it('--log-format json (or SANDBOX_LOG_FORMAT) writes JSON lines, without colour off a TTY', async () => {
    const server = await startServer(['--port', '0'], { SANDBOX_LOG_FORMAT: 'json' })
    expect((await fetch(`${server.url}/api/v1/partner/me`, { headers: auth })).status).toBe(200)
    await waitFor(server, (o) => o.stderr.includes('"path":"/api/v1/partner/me"'))
    const entry = server.output.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((e) => e.path === '/api/v1/partner/me')
    expect(entry).toMatchObject({ level: 'info', method: 'GET', status: 200 })
    expect(server.output.stderr).not.toContain('\x1b[')
  })
})
