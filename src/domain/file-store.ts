import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Bytes of uploaded files. With a data file they are written (temp file + rename) to
 * `<data file>.files/` before the upload is acknowledged, so they survive a restart; in
 * memory mode they live in a map.
 */
export class FileStore {
  private readonly memory = new Map<string, Buffer>()
  private readonly dir?: string

  constructor(dataFile?: string) {
    if (dataFile) this.dir = `${dataFile}.files`
  }

  write(id: string, bytes: Buffer): void {
    if (!this.dir) {
      this.memory.set(id, bytes)
      return
    }
    // Owner only, as the data file: pictures are users' personal data.
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    const target = join(this.dir, id)
    writeFileSync(`${target}.tmp`, bytes, { mode: 0o600 })
    renameSync(`${target}.tmp`, target)
  }

  /** Forgets a file's bytes (its partner was reset or deleted). */
  remove(id: string): void {
    if (!/^file_[0-9A-Za-z]+$/.test(id)) return
    if (!this.dir) {
      this.memory.delete(id)
      return
    }
    rmSync(join(this.dir, id), { force: true })
  }

  read(id: string): Buffer | undefined {
    if (!/^file_[0-9A-Za-z]+$/.test(id)) return undefined
    if (!this.dir) return this.memory.get(id)
    const path = join(this.dir, id)
    return existsSync(path) ? readFileSync(path) : undefined
  }
}
