import { z } from '@hono/zod-openapi'

/**
 * Control characters in a person's text: NUL and the other C0 controls, and DEL. They are
 * invisible where the text is shown, end C strings early (a NUL-padded password must not
 * pass for the password without it) and make two equal-looking names differ. Refused with a
 * 400 naming the field, never stripped: what is stored is what was sent.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/
/** The same, but tab, line feed and carriage return are allowed (descriptions, evidence). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/

export const NO_CONTROL = 'must not contain control characters (NUL, other C0 controls or DEL)'
const NO_CONTROL_MULTI =
  'must not contain control characters (NUL, C0 controls other than tab and line breaks, or DEL)'

/** One line of text (names, addresses, passwords, URLs): no C0 control and no DEL. */
export const singleLine = <T extends z.ZodString | z.ZodURL>(schema: T): T =>
  schema.regex(SINGLE_LINE, NO_CONTROL) as T

/** Free text that may span lines: tab, LF and CR allowed; any other C0 control or DEL refused. */
export const multiLine = (schema: z.ZodString = z.string()) =>
  schema.regex(MULTI_LINE, NO_CONTROL_MULTI)
