import type { Deps } from '../deps.js'
import { ApiError, validationError } from '../errors.js'
import type { FileRow, UserRow } from '../store/records.js'
import { publicUser } from './users.js'

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

export async function setProfilePicture(deps: Deps, user: UserRow, file: unknown) {
  if (!(file instanceof File)) {
    throw validationError(
      'profile_picture',
      'is required: send one file in a multipart/form-data field named profile_picture',
    )
  }
  if (file.size > deps.config.pictureLimit) {
    throw new ApiError(
      'payload_too_large',
      `profile_picture is ${file.size} bytes; the limit is ${deps.config.pictureLimit} bytes.`,
      {
        details: [
          {
            field: 'profile_picture',
            message: `must be at most ${deps.config.pictureLimit} bytes`,
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
  const id = deps.random.id('file')
  const row: FileRow = {
    id,
    partner_id: user.partner_id,
    user_id: user.id,
    purpose: 'profile_picture',
    content_type: contentType,
    size: bytes.length,
    created_at: deps.clocks.forPartner(user.partner_id).iso(),
  }
  // Bytes first: the row that points at them is only written once they are safely stored.
  deps.files.write(id, bytes)
  const fresh = deps.store.get('users', user.id) ?? user
  const next = {
    ...fresh,
    profile_picture_url: `/files/${id}`,
    updated_at: deps.clocks.forPartner(user.partner_id).iso(),
  }
  deps.store.batch((w) => {
    w.put('files', row)
    w.put('users', next)
    deps.events.record(w, user.partner_id, 'user.updated', publicUser(deps, next))
  })
  return { profile_picture_url: publicUser(deps, next).profile_picture_url as string }
}
