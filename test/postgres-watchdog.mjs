// The watchdog of a test PostgreSQL server (test/postgres-server.ts): a process of its own that
// stops the server once the process that started it is gone. A test runner killed (Ctrl-C, a CI
// time limit, kill -9) runs no teardown, and pg_ctl's server, a daemon, would keep running in
// its temporary folder. Started detached, so the Ctrl-C that stops the runner's process group
// does not stop it too; stop() of the server kills it first (SIGKILL) and stops the server
// itself.
//   node test/postgres-watchdog.mjs <runner pid> <server folder> <pg_ctl stop command, JSON>
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'

const [runner, folder, command] = [
  Number(process.argv[2]),
  process.argv[3],
  JSON.parse(process.argv[4]),
]

// A terminal closing, or a Ctrl-C sent to it by pid: the runner decides, the watchdog watches.
for (const signal of ['SIGINT', 'SIGHUP']) process.on(signal, () => {})

/** Whether `pid` still runs (a zombie, dead but not yet reaped, counts as gone). */
function running(pid) {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return error.code === 'EPERM'
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return true
  }
}

const timer = setInterval(() => {
  // The server's own stop() removed its folder: nothing left to watch.
  if (!existsSync(folder)) process.exit(0)
  if (running(runner)) return
  clearInterval(timer)
  spawnSync(command[0], command.slice(1), { stdio: 'ignore' })
  rmSync(folder, { recursive: true, force: true })
  process.exit(0)
}, 250)
