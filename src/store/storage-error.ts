import { dirname } from 'node:path'

/**
 * A write the data file could not take: the file system is full, over its quota, read-only or
 * failing. The write it belonged to was refused and rolled back (nothing of it stays on disk
 * or in memory), so the caller can answer 507 and the sandbox goes on: reads keep working, and
 * the next write tries the disk again.
 */
export class StorageError extends Error {
  override name = 'StorageError'

  constructor(
    /** The errno name (ENOSPC, EDQUOT, EROFS, EIO…), or `short_write`. */
    readonly code: string,
    /** What went wrong and what to free or fix, e.g. `the file system holding /data is full: free space there`. */
    readonly why: string,
    options?: { cause?: unknown },
  ) {
    super(
      `The data file could not take this write: ${why}. Nothing was changed; writes are taken ` +
        'again by themselves once the disk can take them.',
      options,
    )
  }
}

/** What each failure means, and what a person can do about it. */
const remedies: Record<string, (folder: string) => string> = {
  ENOSPC: (folder) => `the file system holding ${folder} is full: free space there`,
  short_write: (folder) =>
    `the file system holding ${folder} took only part of it: free space there`,
  EDQUOT: (folder) => `the disk quota of ${folder} is used up: free space in it or raise the quota`,
  EROFS: (folder) => `${folder} is on a read-only file system: remount it read-write`,
  EIO: (folder) => `the device holding ${folder} failed (EIO): check it and free or move the data`,
}

/** `error` (from a write of `path`) as a StorageError that says what to free or fix. */
export function storageError(error: unknown, path: string): StorageError {
  if (error instanceof StorageError) return error
  const code = (error as { code?: unknown })?.code
  const name = typeof code === 'string' ? code : 'unknown'
  const remedy = remedies[name]?.(dirname(path))
  const cause = typeof code === 'string' ? code : (error as Error)?.message
  const why = remedy ?? `${dirname(path)} could not be written (${cause})`
  return new StorageError(name, why, { cause: error })
}

/** A write(2) that took fewer bytes than it was given and then nothing more. */
export function shortWrite(written: number, wanted: number): Error {
  return Object.assign(new Error(`short write: ${written} of ${wanted} bytes`), {
    code: 'short_write',
  })
}
