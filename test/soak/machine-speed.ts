import { type ChildProcess, spawn } from 'node:child_process'
import { cpuSeconds } from './proc-stats.js'

/**
 * How fast this machine's CPU runs a fixed piece of work, window by window. On a virtual
 * machine a neighbour can slow every process down for tens of seconds: each request then costs
 * the sandbox more CPU time though the sandbox did nothing different (a CI run of the history
 * soak measured x0.76 per CPU second, and the same commit x1.06 right after). A small child
 * process does the same work in short bursts all along (JSON and strings, like a request; about
 * a tenth of a core), and a window's speed is its work per CPU second of that child: what the
 * sandbox did per CPU second divided by it is what a request costs, machine aside. A request
 * that costs more as history grows still shows: the gauge's work never changes.
 */
const WORK = `
const record = { id: 'usr_0123456789', partner_id: '3f0c2a7e-0000-4000-8000-000000000000',
  email: 'robin@example.com', names: Array.from({ length: 40 }, (_, i) => 'item ' + i),
  amounts: Array.from({ length: 40 }, (_, i) => ({ cents: i * 137, currency: 'USD' })) }
let units = 0
setInterval(() => {
  const until = performance.now() + 8
  while (performance.now() < until) {
    const copy = JSON.parse(JSON.stringify(record))
    copy.email = copy.email.toUpperCase().split('@').join(' at ')
    units++
  }
  process.stdout.write(units + '\\n')
}, 80)
`

export interface MachineSpeed {
  /** Work units per CPU second of the gauge since the last call (its first call: since start). */
  take(): number
  stop(): void
}

export function startMachineSpeed(): MachineSpeed {
  const child: ChildProcess = spawn(process.execPath, ['-e', WORK], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  let units = 0
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (text: string) => {
    const last = text.trimEnd().split('\n').at(-1)
    if (last) units = Number(last)
  })
  let fromUnits = 0
  let fromCpu = 0
  return {
    take() {
      const cpu = child.pid ? cpuSeconds(child.pid) : 0
      const speed = cpu > fromCpu ? (units - fromUnits) / (cpu - fromCpu) : 0
      fromUnits = units
      fromCpu = cpu
      return Math.round(speed)
    },
    stop() {
      child.kill()
    },
  }
}
