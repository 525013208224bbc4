/**
 * Preloaded into Switchboard by the telegram bench (BENCH_TG_NODE_FLAGS="--import <abs path>/bench/heap-sampler.mjs"):
 * V8's sampling heap profiler from the process's start to its exit, counting objects that were collected as well
 * as those still alive (`--heap-prof` counts only the latter, and most of a message's allocations die young), one
 * sample per 4 KiB on average. The profile is written as <tmpdir>/switchboard-<pid>.heapprofile when the process
 * exits, for `npx tsx bench/alloc-summary.ts`.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";

const session = new Session();
session.connect();
session.post("HeapProfiler.startSampling", {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
// An in-process session answers synchronously, so the profile is written before the process is gone.
process.once("exit", () => {
  session.post("HeapProfiler.stopSampling", (error, result) => {
    const file = join(tmpdir(), `switchboard-${process.pid}.heapprofile`);
    if (error) process.stderr.write(`heap-sampler: ${error.message}\n`);
    else writeFileSync(file, JSON.stringify(result.profile));
    process.stderr.write(`heap-sampler: ${file}\n`);
  });
});
