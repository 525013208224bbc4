/**
 * `npx tsx bench/alloc-summary.ts <file.heapprofile> [messages] [by]`: what a sampling heap profile (the telegram
 * bench with BENCH_TG_NODE_FLAGS="--heap-prof --heap-prof-dir=<dir>", written when Switchboard stops) allocated, by function or by package (`by`: fn or pkg), per message when `messages` is
 * given: the garbage the young generation scavenges and the GC time that goes with it.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: ProfileNode[];
}

const [file, messages = "1", by = "fn"] = process.argv.slice(2);
if (!file) throw new Error("usage: alloc-summary.ts <file.heapprofile> [messages] [fn|pkg]");
const profile = JSON.parse(readFileSync(file, "utf8")) as { head: ProfileNode; samples: Array<{ nodeId: number; size: number }> };

const sizeOf = new Map<number, number>();
for (const sample of profile.samples) sizeOf.set(sample.nodeId, (sizeOf.get(sample.nodeId) ?? 0) + sample.size);

const bytes = new Map<string, number>();
const visit = (node: ProfileNode): void => {
  const size = sizeOf.get(node.id) ?? 0;
  if (size > 0) bytes.set(labelOf(node), (bytes.get(labelOf(node)) ?? 0) + size);
  node.children.forEach(visit);
};
visit(profile.head);

const total = [...bytes.values()].reduce((sum, size) => sum + size, 0);
const perMessage = (size: number) => `${(size / 1024 / Number(messages)).toFixed(1)} KiB`;
console.log(`allocated ${(total / 2 ** 20).toFixed(1)} MiB in all, ${perMessage(total)} per message`);
for (const [label, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${perMessage(size).padStart(12)}  ${label}`);

function labelOf({ callFrame }: ProfileNode): string {
  const url = callFrame.url.replace(/.*node_modules\//, "").replace(/.*\/dist\//, "dist/");
  if (by === "pkg") return /^((@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? (url || callFrame.functionName);
  return `${callFrame.functionName || "(anonymous)"} ${url}:${callFrame.lineNumber}`;
}
