/** Waiting in tests without sleeping to synchronize: on an event, or by polling with a deadline. */
import type { EventEmitter } from "node:events";

/** Waits until `done()` holds, re-checking each time `emitter` emits `event`; rejects after `timeoutMs`. */
export function whenEmitted(done: () => boolean, emitter: EventEmitter, event: string, timeoutMs: number, what: () => string): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!done()) return;
      clearTimeout(timer);
      emitter.off(event, check);
      resolve();
    };
    const timer = setTimeout(() => {
      emitter.off(event, check);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
    }, timeoutMs);
    emitter.on(event, check);
  });
}

/** Polls `probe` every 10 ms until it answers truthy, and returns that; rejects after `timeoutMs` naming `what`. */
export async function eventually<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
