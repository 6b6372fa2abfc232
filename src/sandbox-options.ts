import type { z } from 'zod'
import type { sandboxOptionsSchema } from './config.js'

/**
 * Options of createSandbox/startSandbox, inferred from the schema that validates them. The
 * published declarations carry it expanded into a plain type (scripts/public-types.mjs).
 */
export type SandboxOptions = z.input<typeof sandboxOptionsSchema>
