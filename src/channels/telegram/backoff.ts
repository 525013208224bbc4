/** Waiting between attempts: exponential backoff with a cap, and a sleep that ends early when the channel stops. */

export interface Backoff {
  /** First wait; doubles with each failure. */
  baseMs: number;
  maxMs: number;
}

/** The wait after the `failures`-th failure in a row (1 = the first). */
export function backoffDelay(backoff: Backoff, failures: number): number {
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** (failures - 1));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}
