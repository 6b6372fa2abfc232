import { ApiError, validationError } from '../errors.js'
import type { StateReader, StateTx } from '../state/seam.js'
import type { FileContentRow, FileRow, UserRow } from '../store/records.js'
import { publicUser, type UsersContext } from './users.js'

type ImageType = FileRow['content_type']

/** Recognises an image by its first bytes, never by its name or declared type. */
export function sniffImage(bytes: Buffer): ImageType | undefined {
  if (
    bytes.length >= 8 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  ) {
    return 'image/png'
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return 'image/jpeg'
  if (
    bytes.length >= 12 &&
    bytes.toString('latin1', 0, 4) === 'RIFF' &&
    bytes.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return 'image/webp'
  }
  return undefined
}

/** The uploaded picture's bytes and type, or the error naming what is wrong with it. */
export async function readPicture(
  limit: number,
  file: unknown,
): Promise<{ bytes: Buffer; contentType: ImageType }> {
  if (!(file instanceof File)) {
    throw validationError(
      'profile_picture',
      'is required: send one file in a multipart/form-data field named profile_picture',
    )
  }
  if (file.size > limit) {
    throw new ApiError(
      'payload_too_large',
      `profile_picture is ${file.size} bytes; the limit is ${limit} bytes.`,
      {
        details: [
          {
            field: 'profile_picture',
            message: `must be at most ${limit} bytes`,
            location: 'body',
          },
        ],
      },
    )
  }
  const bytes = Buffer.from(await file.arrayBuffer())
  const contentType = sniffImage(bytes)
  if (!contentType) {
    throw new ApiError(
      'unsupported_media_type',
      'profile_picture must be a PNG, JPEG or WebP image (checked by its content).',
      {
        details: [
          {
            field: 'profile_picture',
            message: 'is not a PNG, JPEG or WebP image',
            location: 'body',
          },
        ],
      },
    )
  }
  return { bytes, contentType }
}

/** A file's bytes as the state keeps them: encode before the transaction, it takes a while. */
export function fileContent(file: FileRow, bytes: Buffer): FileContentRow {
  return { id: file.id, partner_id: file.partner_id, content: bytes.toString('base64') }
}

/**
 * Writes a new file's row and its bytes, points the user at it and tells the partner: all in
 * the one transaction, so no row ever points at bytes that are not there.
 */
export async function usePicture(
  ctx: UsersContext,
  tx: StateTx,
  user: UserRow,
  file: FileRow,
  content: FileContentRow,
): Promise<UserRow> {
  const fresh = (await tx.get('users', user.id)) ?? user
  const next = {
    ...fresh,
    profile_picture_url: `/files/${file.id}`,
    updated_at: ctx.clocks.forPartner(user.partner_id).iso(),
  }
  tx.put('files', file)
  tx.put('file_contents', content)
  tx.put('users', next)
  await ctx.events.record(tx, user.partner_id, 'user.updated', publicUser(ctx, next))
  return next
}

/** A stored file and its bytes, when both are there: read through the state, on any replica. */
export async function storedFile(
  reader: StateReader,
  id: string,
): Promise<{ row: FileRow; bytes: Buffer } | undefined> {
  const [row, content] = await Promise.all([
    reader.get('files', id),
    reader.get('file_contents', id),
  ])
  return row && content ? { row, bytes: Buffer.from(content.content, 'base64') } : undefined
}
