import { afterAll } from 'vitest'
import { closeOpenSandboxes } from './helpers.js'

// Run before each test file, even when the files share a worker (vitest setupFiles): the
// sandboxes a file made and left open are closed when the file ends.
afterAll(closeOpenSandboxes)
