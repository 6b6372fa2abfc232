import { readFileSync } from 'node:fs'

/** What /proc says of a process: its resident memory and the CPU time it used. */

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0)
  return Math.round(kb / 102.4) / 10
}

/** CPU seconds (user + system) the process has used, from /proc (clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces): utime and stime are 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}
