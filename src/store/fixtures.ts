import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { hashSecret, PASSWORD_COST } from '../domain/secret-hash.js'
import { packageRoot } from '../package-root.js'
import type { Random } from '../random.js'
import { describeIssues } from '../scenarios/loader.js'
import { type CollectionsData, emptyCollections, partnerRow, userRow } from './records.js'

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
      return { file, raw: JSON.parse(readFileSync(file, 'utf8')) }
    } catch (error) {
      throw new Error(`fixtures file ${file} is not valid JSON: ${(error as Error).message}`)
    }
  })
}

/** Reads, validates and merges fixture files into collections, hashing any plain secrets. */
export async function loadFixtures(
  path: string,
  random: Random,
  now: string,
): Promise<CollectionsData> {
  const data = emptyCollections()
  for (const { file, raw } of readFixtureFiles(path)) {
    const parsed = fixturesSchema.safeParse(raw)
    if (!parsed.success)
      throw new Error(`fixtures file ${file} is invalid: ${describeIssues(parsed.error, raw)}`)
    for (const { api_secret, ...p } of parsed.data.partners) {
      const api_secret_hash = p.api_secret_hash ?? (await hashSecret(api_secret as string, random))
      data.partners[p.id] = {
        ...p,
        api_secret_hash,
        created_at: p.created_at ?? now,
        updated_at: p.updated_at ?? now,
      }
    }
    for (const { password, ...u } of parsed.data.users) {
      if (!data.partners[u.partner_id]) {
        throw new Error(
          `fixtures file ${file}: user ${u.email} names partner ${u.partner_id}, which no fixture defines`,
        )
      }
      const password_hash =
        u.password_hash ?? (await hashSecret(password as string, random, PASSWORD_COST))
      data.users[u.id] = {
        ...u,
        password_hash,
        created_at: u.created_at ?? now,
        updated_at: u.updated_at ?? now,
      }
    }
  }
  return data
}
