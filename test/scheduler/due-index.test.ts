import { describe, expect, it } from "vitest";
import { DueIndex, type DueEntry } from "../../src/scheduler/due-index.js";
import { ManualClock } from "./helpers.js";

function index(clock: ManualClock): { due: DueIndex; fired: DueEntry[][] } {
  const fired: DueEntry[][] = [];
  const due = new DueIndex(clock, (entries) => fired.push(entries));
  due.start();
  return { due, fired };
}

describe("DueIndex", () => {
  it("fires entries in due order, all those due at once in one batch, with a single timer", () => {
    const clock = new ManualClock(0);
    const { due, fired } = index(clock);
    due.set("c", 300);
    due.set("a", 100);
    due.set("b", 100);
    due.set("d", 5_000);
    expect(clock.pendingTimers).toBe(1);
    clock.advanceTo(100);
    expect(fired).toEqual([[{ id: "a", due: 100 }, { id: "b", due: 100 }]]);
    clock.advanceTo(4_999);
    expect(fired.flat().map((e) => e.id)).toEqual(["a", "b", "c"]);
    expect(due.size).toBe(1);
    expect(clock.pendingTimers).toBe(1);
  });

  it("a replaced or deleted entry does not fire at its old time", () => {
    const clock = new ManualClock(0);
    const { due, fired } = index(clock);
    due.set("a", 100);
    due.set("b", 200);
    due.set("a", 1_000);
    due.delete("b");
    clock.advanceTo(999);
    expect(fired).toEqual([]);
    clock.advanceTo(1_000);
    expect(fired).toEqual([[{ id: "a", due: 1_000 }]]);
  });

  it("an entry already due fires at once; a far one wakes up hourly and still fires on time", () => {
    const clock = new ManualClock(10_000);
    const { due, fired } = index(clock);
    due.set("late", 5_000);
    clock.advance(0);
    expect(fired).toEqual([[{ id: "late", due: 5_000 }]]);
    const inTwoDays = clock.now() + 2 * 86_400_000;
    due.set("far", inTwoDays);
    clock.advanceTo(inTwoDays - 1);
    expect(fired).toHaveLength(1);
    clock.advanceTo(inTwoDays);
    expect(fired.at(-1)).toEqual([{ id: "far", due: inTwoDays }]);
  });

  it("keeps 100,000 entries and many replacements proportional in size", () => {
    const clock = new ManualClock(0);
    const { due, fired } = index(clock);
    for (let i = 0; i < 100_000; i++) due.set(`t${i}`, 1_000_000 + i);
    for (let round = 0; round < 3; round++) for (let i = 0; i < 100_000; i++) due.set(`t${i}`, 2_000_000 + round * 1_000 + i);
    expect(due.size).toBe(100_000);
    expect((due as unknown as { heap: unknown[] }).heap.length).toBeLessThan(300_000);
    clock.advanceTo(2_002_000 + 99_999);
    expect(fired.flat()).toHaveLength(100_000);
    expect(fired.flat()[0]).toEqual({ id: "t0", due: 2_002_000 });
  });
});
