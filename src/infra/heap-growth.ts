/**
 * V8's heap sizing for a gateway started as plain `node dist/cli.js start`, which cannot pass Node its flags.
 * Left alone on a host with 2 GiB or more of heap limit, V8 lets the old generation grow to up to 4 times what
 * survived its last full collection, and each of the two semi-spaces of the young generation to 16 MiB. The gateway
 * keeps little alive (~50 MiB), so most of its resident set after 10,000 users was garbage waiting for a
 * collection. Two of V8's flags are read at every collection, not only when the heap is made, so the process can set
 * them for itself before it loads the rest of its code: the old generation's growth factor, and whether the young
 * generation may grow again. Flags given to Node (`npm start`, the Docker image, NODE_OPTIONS) win.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/**
 * The old generation grows to 1.25 times what survived the last full collection before the next one: with the
 * young generation below, 187 MiB after the telegram bench's 10,000 users against 390 (50%: 203 MiB), for about a
 * fifth more CPU per message in its burst (more scavenges and full collections).
 */
export const HEAP_GROWING_PERCENT = 25;
/** The young generation stops growing at two semi-spaces of 4 MiB, as with `--max-semi-space-size=4`. */
export const NEW_SPACE_BYTES = 8 * 2 ** 20;

/** Whether Node's own flags already size the heap: those are the user's choice. */
export function heapFlagsGiven(execArgv: readonly string[], nodeOptions = ""): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) =>
    /^--(?:max[-_]old[-_]space[-_]size|max[-_]semi[-_]space[-_]size|heap[-_]growing[-_]percent|semi[-_]space[-_]growth[-_]factor)\b/.test(arg),
  );
}

/** Whether boundHeapGrowth set the bound, and whether letYoungGenerationGrow already follows the young generation. */
let bounded = false;
let watching = false;

/**
 * Bounds the heap's growth for the rest of the process, unless Node was given heap flags; answers whether it did.
 * The young generation does not grow until `letYoungGenerationGrow`: while the code loads nearly everything
 * survives, and V8 doubled the young generation at almost every collection, past the bound before the first report
 * of one reached the observer below (a start that loaded fewer modules ended with 28 MiB instead of 8).
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS): boolean {
  if (heapFlagsGiven(execArgv, nodeOptions)) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  setFlagsFromString("--semi-space-growth-factor=1");
  bounded = true;
  return true;
}

/**
 * Once the process has loaded and started: the young generation doubles (V8's `--semi-space-growth-factor`, 2)
 * until it reaches NEW_SPACE_BYTES, checked after each collection; then it may not grow (factor 1) until V8 shrinks
 * it again. From now on a doubling needs as many bytes to survive as the young generation holds, many collections
 * and turns of the event loop apart, so each is seen before the next. Does nothing without the bound.
 */
export function letYoungGenerationGrow(): void {
  if (!bounded || watching) return;
  watching = true;
  let growing = false;
  const follow = (): void => {
    const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
    if (growing === newSpace < NEW_SPACE_BYTES) return;
    growing = !growing;
    setFlagsFromString(`--semi-space-growth-factor=${growing ? 2 : 1}`);
  };
  follow();
  new PerformanceObserver(follow).observe({ entryTypes: ["gc"] });
}
