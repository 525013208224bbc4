/** Waits until `done()` holds, re-checking whenever `events` emits "change"; rejects after `timeoutMs`. */
import type { EventEmitter } from "node:events";

export function until(done: () => boolean, events: EventEmitter, timeoutMs: number, what: () => string): Promise<void> {
  if (done()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!done()) return;
      clearTimeout(timer);
      events.off("change", check);
      resolve();
    };
    const timer = setTimeout(() => {
      events.off("change", check);
      reject(new Error(`fake-feishu: timed out after ${timeoutMs} ms waiting for ${what()}`));
    }, timeoutMs);
    events.on("change", check);
  });
}
