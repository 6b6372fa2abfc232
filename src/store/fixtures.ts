import { isAscii } from 'node:buffer'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { hashSecret, PASSWORD_COST } from '../domain/secret-hash.js'
import { packageRoot } from '../package-root.js'
import type { Random } from '../random.js'
import { describeIssues } from '../scenarios/loader.js'
import { readFixturesFile } from './fixtures-text.js'
import { type CollectionsData, emptyCollections, partnerRow, userRow } from './records.js'
import { shareValues } from './shared-values.js'

/**
 * Seed data. A fixture row is a stored row whose timestamps may be omitted and whose
 * secret may be given in plain text (`api_secret`, `password`) instead of as a hash; the
 * bundled file carries hashes only, so start-up does no hashing.
 */

const fixturePartner = partnerRow
  .extend({
    api_secret_hash: partnerRow.shape.api_secret_hash.optional(),
    api_secret: z
      .string()
      .startsWith('sk_test_')
      .optional()
      .describe('Plain test secret, hashed at load.'),
    scenario: partnerRow.shape.scenario.default(null),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  })
  .strict()
  .refine((p) => p.api_secret || p.api_secret_hash, 'give api_secret or api_secret_hash')

const fixtureUser = userRow
  .extend({
    password_hash: userRow.shape.password_hash.optional(),
    password: z.string().min(8).optional().describe('Plain test password, hashed at load.'),
    profile_picture_url: userRow.shape.profile_picture_url.default(null),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  })
  .strict()
  .refine((u) => u.password || u.password_hash, 'give password or password_hash')

export const fixturesSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().optional(),
    partners: z.array(fixturePartner).default([]),
    users: z.array(fixtureUser).default([]),
  })
  .strict()

export type Fixtures = z.infer<typeof fixturesSchema>

export const defaultFixturesPath = join(packageRoot, 'fixtures')

function readFixtureFiles(path: string): { file: string; raw: unknown }[] {
  if (!existsSync(path)) throw new Error(`fixtures ${path} do not exist`)
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith('.json') && !f.endsWith('.schema.json'))
        .sort()
        .map((f) => join(path, f))
    : [path]
  return files.map((file) => {
    try {
      return { file, raw: readFixturesFile(file) ?? JSON.parse(fileText(file)) }
    } catch (error) {
      throw new Error(`fixtures file ${file} is not valid JSON: ${(error as Error).message}`)
    }
  })
}

/**
 * The text of a file. An ASCII file (the usual JSON) is decoded as latin1, which for a large
 * file Node keeps outside the V8 heap (an external string): its memory goes back as soon as
 * the string is collected, instead of growing the heap the rows live in (68 MB for 100k
 * fixture users).
 */
function fileText(file: string): string {
  const bytes = readFileSync(file)
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')
}

/** The file around its rows; each row is checked on its own (see loadFixtures). */
const fixturesEnvelope = z
  .object({
    ...fixturesSchema.shape,
    partners: z.array(z.unknown()).default([]),
    users: z.array(z.unknown()).default([]),
  })
  .strict()

/**
 * Reads, validates and merges fixture files into collections, hashing any plain secrets.
 *
 * Each row is checked by its own schema, and a row that needs nothing added (no plain secret,
 * no default, no missing time) is kept as the object JSON.parse made, frozen later as the
 * pristine copy for resets (fixture-seed.ts). Checking the whole file in one parse built a
 * copy of every row that outlived the load: at 100k users, 90 MB of garbage beside 82 MB of
 * rows, which the process kept as RSS long after.
 */
export async function loadFixtures(
  path: string,
  random: Random,
  now: string,
): Promise<CollectionsData> {
  const data = emptyCollections()
  const partnerIds = new Map<string, string>()
  for (const { file, raw } of readFixtureFiles(path)) {
    const envelope = fixturesEnvelope.safeParse(raw)
    if (!envelope.success) throw invalidFixtures(file, envelope.error.issues, raw)
    const issues: z.core.$ZodIssue[] = []
    const check = <T>(schema: z.ZodType<T>, list: string, rows: unknown[], i: number) => {
      const parsed = schema.safeParse(rows[i])
      if (parsed.success) return parsed.data
      for (const issue of parsed.error.issues)
        issues.push({ ...issue, path: [list, i, ...issue.path] })
      return undefined
    }
    const { partners, users } = envelope.data
    for (let i = 0; i < partners.length; i++) {
      const parsed = check(fixturePartner, 'partners', partners, i)
      if (!parsed) continue
      const { api_secret, ...p } = parsed
      const api_secret_hash = p.api_secret_hash ?? (await hashSecret(api_secret as string, random))
      const row = {
        ...p,
        api_secret_hash,
        created_at: p.created_at ?? now,
        updated_at: p.updated_at ?? now,
      }
      data.partners[p.id] = asParsed(partners[i], row)
    }
    for (let i = 0; i < users.length; i++) {
      const parsed = check(fixtureUser, 'users', users, i)
      if (!parsed) continue
      const { password, ...u } = parsed
      if (!data.partners[u.partner_id]) {
        throw new Error(
          `fixtures file ${file}: user ${u.email} names partner ${u.partner_id}, which no fixture defines`,
        )
      }
      const password_hash =
        u.password_hash ?? (await hashSecret(password as string, random, PASSWORD_COST))
      const row = {
        ...u,
        password_hash,
        created_at: u.created_at ?? now,
        updated_at: u.updated_at ?? now,
      }
      const user = asParsed(users[i], row)
      shareValues(user, undefined, partnerIds)
      data.users[u.id] = user
    }
    if (issues.length > 0) throw invalidFixtures(file, issues, raw)
  }
  return data
}

function invalidFixtures(file: string, issues: z.core.$ZodIssue[], raw: unknown): Error {
  return new Error(
    `fixtures file ${file} is invalid: ${describeIssues(new z.ZodError(issues), raw)}`,
  )
}

/**
 * The row as JSON.parse makes it: the file's own object when it holds exactly the row (the
 * usual case), else a plain copy. The objects zod and spreads build take more memory, and V8
 * turns them into dictionaries when frozen (82 MB of rows became 173 MB at 100k users).
 */
function asParsed<T>(fromFile: unknown, row: T): T {
  const text = JSON.stringify(row)
  return (JSON.stringify(fromFile) === text ? fromFile : JSON.parse(text)) as T
}
