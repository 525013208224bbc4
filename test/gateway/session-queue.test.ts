import { describe, expect, it } from "vitest";
import { SessionQueue } from "../../src/gateway/session-queue.js";

/** A promise with its resolve function, to hold a task open until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("SessionQueue", () => {
  it("runs one session's tasks one at a time in arrival order", async () => {
    const queue = new SessionQueue(4);
    const events: string[] = [];
    const tasks = Array.from({ length: 20 }, (_, i) =>
      queue.run("s", async () => {
        events.push(`start ${i}`);
        await Promise.resolve();
        events.push(`end ${i}`);
        return i;
      }),
    );
    expect(await Promise.all(tasks)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(events).toEqual(Array.from({ length: 20 }, (_, i) => [`start ${i}`, `end ${i}`]).flat());
  });

  it("runs different sessions in parallel up to the cap", async () => {
    const queue = new SessionQueue(3);
    const release = gate();
    let running = 0;
    let peak = 0;
    const tasks = Array.from({ length: 6 }, (_, i) =>
      queue.run(`s${i}`, async () => {
        running += 1;
        peak = Math.max(peak, running);
        await release.promise;
        running -= 1;
      }),
    );
    await expect.poll(() => queue.activeTurns).toBe(3);
    release.open();
    await Promise.all(tasks);
    expect(peak).toBe(3);
  });

  it("cancel aborts the running task and drops the queued ones", async () => {
    const queue = new SessionQueue(2);
    const started = gate();
    const first = queue.run("s", (signal) => {
      started.open();
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    });
    const second = queue.run("s", async () => "never");
    await started.promise;
    expect(queue.state("s")).toEqual({ running: true, queued: 1 });
    expect(queue.cancel("s")).toEqual({ running: true, queued: 1 });
    await expect(first).rejects.toMatchObject({ name: "AbortError" });
    await expect(second).rejects.toMatchObject({ name: "AbortError" });
    await queue.idle();
    expect(queue.state("s")).toEqual({ running: false, queued: 0 });
    expect(await queue.run("s", async () => "after")).toBe("after");
  });

  it("a failing task does not block the session", async () => {
    const queue = new SessionQueue(1);
    const failed = queue.run("s", async () => {
      throw new Error("boom");
    });
    const next = queue.run("s", async () => "ok");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("ok");
  });
});
