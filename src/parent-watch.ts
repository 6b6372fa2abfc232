import { readFileSync } from 'node:fs'

/**
 * `npx partner-sandbox &` runs the CLI under npm's process; killing npx (SIGTERM, a CI step
 * ending) may leave the CLI orphaned, still holding the port. The CLI watches its parent
 * and stops gracefully once it is gone. Node's `process.ppid` is read once at start, so the
 * live parent comes from /proc (Linux), else from probing the original parent's pid.
 */

/** The current parent pid on Linux, or undefined where /proc is not available. */
function liveParentPid(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    return Number.isInteger(ppid) ? ppid : undefined
  } catch {
    return undefined
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Whether the parent the process started under is gone (reparented, or no longer running). */
export function parentGone(originalPpid: number): boolean {
  const live = liveParentPid()
  return live === undefined ? !alive(originalPpid) : live !== originalPpid
}

/**
 * Calls `onGone` once when the parent process exits. No watch when started without a real
 * parent to lose (PID 1 in a container, or already under init), nor with
 * SANDBOX_PARENT_WATCH=off (a sandbox meant to outlive its shell, e.g. under nohup).
 * The timer is unref'd: it never keeps the process alive. Returns a function that stops it.
 */
export function watchParent(onGone: () => void, intervalMs = 500): () => void {
  const ppid = process.ppid
  if (ppid <= 1 || process.env.SANDBOX_PARENT_WATCH === 'off') return () => {}
  const timer = setInterval(() => {
    if (!parentGone(ppid)) return
    clearInterval(timer)
    // The parent may have held the other end of our stdout/stderr: a log line written while
    // stopping must not turn into an EPIPE crash that skips the graceful close.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})
    onGone()
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
