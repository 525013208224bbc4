/**
 * Run as its own process by heap-growth.test.ts (V8's flags are the whole process's): bounds the heap's growth as
 * the command does, then allocates objects that live through a few scavenges: first in one synchronous stretch, as
 * loading the code does, then (growth let go, as `start` does once the gateway runs) with turns of the event loop
 * between. Prints whether the bound was set, the young generation's size after the first stretch and its largest
 * size after; V8's --trace-gc-verbose lines, when asked for, are on stdout too.
 */
import { getHeapSpaceStatistics } from "node:v8";
import { boundHeapGrowth, letYoungGenerationGrow } from "../../../src/infra/heap-growth.js";

const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_size;

const bounded = boundHeapGrowth();
const ring: unknown[] = new Array(50_000);
for (let i = 0; i < 1_000_000; i++) ring[i % ring.length] = { i, text: `item ${i}` };
const afterLoading = newSpace();
letYoungGenerationGrow();
let largestNewSpace = 0;
for (let i = 0; i < 2_000_000; i++) {
  ring[i % ring.length] = { i, text: `item ${i}` };
  // A turn of the event loop now and then, for the observer's reports of the collections.
  if (i % 10_000 === 0) {
    await new Promise((resolve) => setImmediate(resolve));
    largestNewSpace = Math.max(largestNewSpace, newSpace());
  }
}
console.log(JSON.stringify({ bounded, afterLoading, largestNewSpace }));
