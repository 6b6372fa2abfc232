/**
 * The values the TypeScript fragments of the README and docs/ take as given (a reader's own
 * test has them), declared for test/package.test.ts, which compiles those fragments. A block
 * that declares one of these itself shadows it (each block is a module).
 */
declare const sandbox: import('partner-sandbox').RunningSandbox
declare const partner: import('partner-sandbox').SandboxPartnerHandle
declare const workerIndex: number
declare const email: string
declare const password: string
declare const userId: string
