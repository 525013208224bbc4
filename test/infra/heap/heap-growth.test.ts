import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, heapFlagsGiven, NEW_SPACE_BYTES } from "../../../src/infra/heap-growth.js";

const run = promisify(execFile);
const CHURN = ["--import", "tsx", "test/infra/heap/churn.ts"];

/** The churn script in a process of its own, with Node's flags; its report and V8's lines. */
async function churn(nodeFlags: string[]): Promise<{ bounded: boolean; afterLoading: number; largestNewSpace: number; limitFactors: string[] }> {
  const { stdout } = await run(process.execPath, [...nodeFlags, ...CHURN], { env: { PATH: process.env.PATH }, timeout: 60_000, maxBuffer: 64 * 2 ** 20 });
  const lines = stdout.trim().split("\n");
  const report = JSON.parse(lines.find((line) => line.startsWith('{"bounded"'))!) as { bounded: boolean; afterLoading: number; largestNewSpace: number };
  // "[HeapController] Limit: old size: 9325 KB, new limit: 21544 KB (1.2)": the factor V8 applied, after the bound.
  const limitFactors = lines.flatMap((line) => /\[HeapController\] Limit: .*\((\d+\.\d)\)$/.exec(line)?.[1] ?? []);
  return { ...report, limitFactors };
}

describe("bounding V8's heap growth at start", () => {
  it("keeps the young generation at two 4 MiB semi-spaces and grows the old one by 25% between full collections", async () => {
    const { bounded, afterLoading, largestNewSpace, limitFactors } = await churn(["--trace-gc-verbose"]);
    expect(bounded).toBe(true);
    // A synchronous stretch in which nearly everything survives, as loading the code is: no observer could act in it.
    expect(afterLoading).toBeLessThan(NEW_SPACE_BYTES);
    // Let go, it grows to the bound and no further.
    expect(largestNewSpace).toBe(NEW_SPACE_BYTES);
    expect(limitFactors.length).toBeGreaterThan(0);
    // Printed with one decimal: 1.25 may read 1.2 or 1.3; V8's own choice here would be up to 4.0.
    for (const factor of limitFactors.slice(-3)) expect(Math.abs(Number(factor) - (1 + HEAP_GROWING_PERCENT / 100))).toBeLessThanOrEqual(0.051);
  });

  it("leaves the heap to Node's flags when they size it", async () => {
    const { bounded, largestNewSpace } = await churn(["--max-semi-space-size=16"]);
    expect(bounded).toBe(false);
    expect(largestNewSpace).toBeGreaterThan(NEW_SPACE_BYTES);
  });

  it("recognizes heap flags given on the command line or in NODE_OPTIONS, in either spelling", () => {
    expect(heapFlagsGiven(["--max-old-space-size=1024"])).toBe(true);
    expect(heapFlagsGiven(["--enable-source-maps"], "--max_semi_space_size=4")).toBe(true);
    expect(heapFlagsGiven(["--import", "tsx"], "--heap-growing-percent=50 --enable-source-maps")).toBe(true);
    expect(heapFlagsGiven(["--enable-source-maps", "--max-http-header-size=80000"], "")).toBe(false);
    expect(heapFlagsGiven([])).toBe(false);
  });
});
