/**
 * Time as a port: whatever waits or measures time (the scheduler, the live reply's throttle) takes a Clock, so that
 * tests run it on a clock of their own instead of waiting in real time.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` once after `delayMs`; returns a function that cancels it. */
  setTimer(delayMs: number, fn: () => void): () => void;
}

/** Longest delay setTimeout accepts; callers re-check the time when a timer fires, so a clamp is harmless. */
const MAX_TIMER_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(delayMs, fn) {
    // Unref'd: a pending timer must not keep a CLI or a test process alive; the HTTP server keeps the gateway's.
    const timer = setTimeout(fn, Math.min(Math.max(0, delayMs), MAX_TIMER_MS)).unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves after `ms` on `clock`; at once when `ms` is not positive. */
export function pause(clock: Clock, ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => clock.setTimer(ms, resolve)) : Promise.resolve();
}
