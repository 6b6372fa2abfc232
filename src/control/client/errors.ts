/** The control plane answered with an error (4xx/5xx), in the sandbox's error envelope. */
export class ControlPlaneError extends Error {
  override name = 'ControlPlaneError'

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { field: string; message: string; location?: string }[] = [],
    readonly requestId: string | undefined = undefined,
    readonly method = '',
    readonly path = '',
  ) {
    super(`${method} ${path} answered ${status} ${code}: ${message}`)
  }
}

/** Nothing matching came before the deadline of a wait. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError'

  constructor(
    readonly type: string | undefined,
    readonly timeoutMs: number,
  ) {
    super(
      `No ${type ?? 'event'} matched within ${timeoutMs} ms (GET /_sandbox/partners/{id}/events/wait).`,
    )
  }
}

/** Something the client was asked for does not exist (no code in the inbox, …). */
export class NotFoundInSandboxError extends Error {
  override name = 'NotFoundInSandboxError'
}
