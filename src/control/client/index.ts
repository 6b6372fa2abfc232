/** The typed control-plane client: `createControlClient(url, { adminToken })`. */
export { type ControlClient, createControlClient } from './control-client.js'
export { ControlPlaneError, NotFoundInSandboxError, WaitTimeoutError } from './errors.js'
export type { ControlClientOptions } from './http.js'
export type { SandboxPartnerHandle } from './partner.js'
export type * from './types.js'
export type { WaitForOptions } from './wait.js'
