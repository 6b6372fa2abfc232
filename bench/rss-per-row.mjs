// RSS per stored row added: the soak's history run (test/soak/soak.soak.ts, the one in
// `npm test`), read here so the benchmark reports the same figure with its target. Four users
// pile up logins, codes, sessions and purchases on the CLI with a data file; RSS is read after
// a full collection at each window's end, and the figure is the slope of RSS over rows stored
// from the window where the inbox and the request journal are full (docs/retention.md).
// Only the memory figure is taken from that run: its other bound (per-request cost) is the
// soak's to judge, and a busy machine moves it.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { isMain, root } from './lib.mjs'

/**
 * At most this many KB of RSS per row added (issue 40), the soak's own bound (KB_PER_ROW in
 * test/soak/soak.soak.ts); a miss here is reported, not fatal.
 */
export const TARGET_KB = 1.0

const FIGURE = /RSS ([\d.]+) at (\d+) s -> ([\d.]+) MB for (\d+) rows added \(([\d.]+) KB per row/

export async function run() {
  const child = spawn(
    process.execPath,
    [
      join('node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      'vitest.soak.config.ts',
      '--testNamePattern',
      'history',
    ],
    // Plain text (no colour codes), so the figure's line reads as the soak prints it.
    { cwd: root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk
  })
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    out += chunk
  })
  await new Promise((resolve) => child.once('close', resolve))
  const match = FIGURE.exec(out)
  if (!match) throw new Error(`the soak's history run printed no RSS figure:\n${out.slice(-4000)}`)
  const [, fromMb, fromSecond, toMb, rows, kbPerRow] = match
  const figure = {
    kbPerRow: Number(kbPerRow),
    rowsAdded: Number(rows),
    rssMb: [Number(fromMb), Number(toMb)],
    fromSecond: Number(fromSecond),
    target: TARGET_KB,
    pass: Number(kbPerRow) <= TARGET_KB,
  }
  console.log(
    `RSS per row added (the soak's history run): ${kbPerRow} KB over ${rows} rows ` +
      `(RSS ${fromMb} -> ${toMb} MB from ${fromSecond} s)  (target <= ${TARGET_KB} KB)`,
  )
  return figure
}

if (isMain(import.meta.url)) await run()
