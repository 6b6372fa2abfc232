/**
 * Steps of the request path that answer a promise only when they have something to wait for
 * (fast-path.ts, Trick 6, says why: an answer that never waits is sent without a promise).
 */
export type Maybe<T> = T | Promise<T>

/**
 * `f(await value)`, without a promise when `value` is none. Not named `then`: a module that
 * exports `then` is thenable, and importing it would call it.
 */
export function after<T, U>(value: Maybe<T>, f: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(f) : f(value)
}

/** The end of a `finally`: throws `error` again once `done` (what the finally ran) is. */
export function rethrowAfter(done: Maybe<unknown>, error: unknown): Maybe<never> {
  if (done instanceof Promise)
    return done.then(() => {
      throw error
    })
  throw error
}
