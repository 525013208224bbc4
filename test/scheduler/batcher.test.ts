/** Group commit: concurrent adds share a write; a failed write fails only its own batch. */
import { describe, expect, it } from "vitest";
import { Batcher } from "../../src/scheduler/batcher.js";

describe("Batcher", () => {
  it("writes what arrives during a write together in the next one, at most maxBatch at a time", async () => {
    const writes: number[][] = [];
    const batcher = new Batcher<number>(async (items) => {
      writes.push(items);
      await Promise.resolve();
    }, 3);
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.add(n)));
    // The first add starts a write alone; the rest waited for it and go in batches of three at most.
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it("an item added as a write ends (after its last look) is still written", async () => {
    const writes: number[][] = [];
    const batcher = new Batcher<number>(async (items) => void writes.push(items), 10);
    for (let n = 0; n < 5; n++) await batcher.add(n);
    expect(writes.flat()).toEqual([0, 1, 2, 3, 4]);
  });

  it("a failed write rejects its batch with the error and the next batch is written", async () => {
    let fail = true;
    const written: number[] = [];
    const batcher = new Batcher<number>(async (items) => {
      if (fail) {
        fail = false;
        throw new Error("disk full");
      }
      written.push(...items);
    }, 10);
    const results = await Promise.allSettled([batcher.add(1), batcher.add(2), batcher.add(3)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error("disk full"));
    expect(written).toEqual([2, 3]);
  });
});
