/** The real clock, and waiting on whichever clock the scheduler was given. */
import type { Clock } from "./types.js";

/** Longest delay setTimeout accepts; callers re-check the time when a timer fires, so a clamp is harmless. */
const MAX_TIMER_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(delayMs, fn) {
    // Unref'd: a pending reminder must not keep a CLI or a test process alive; the HTTP server keeps the gateway's.
    const timer = setTimeout(fn, Math.min(Math.max(0, delayMs), MAX_TIMER_MS)).unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves after `ms` on `clock`, or rejects with the signal's reason when it aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      cancel();
      reject(signal?.reason as Error);
    };
    const cancel = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
