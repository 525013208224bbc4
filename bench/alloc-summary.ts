/**
 * `npx tsx bench/alloc-summary.ts <file.heapprofile> [messages] [by]`: what a sampling heap profile allocated, per
 * message when `messages` is given: the garbage the young generation scavenges and the GC time that goes with it.
 * The profile is bench/heap-sampler.mjs's (collected objects included) or `--heap-prof`'s (live ones only). Frames of
 * the bundled dist/ are mapped back to their sources through the bundle's source maps. `by`:
 * - fn: the allocating function (self), with its source file and line;
 * - pkg: the package, or our source folder (src/agent/wire, ...), of the allocating function;
 * - src: the deepest of our own functions (src/) on the stack: what in our code caused the allocation, through
 *   whatever library did it.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decode, type SourceMapSegment } from "@jridgewell/sourcemap-codec";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children: ProfileNode[];
}
interface Mapped {
  fn: string;
  source: string;
  line: number;
}

const [file, messages = "1", by = "fn"] = process.argv.slice(2);
if (!file) throw new Error("usage: alloc-summary.ts <file.heapprofile> [messages] [fn|pkg|src]");
const profile = JSON.parse(readFileSync(file, "utf8")) as { head: ProfileNode; samples: Array<{ nodeId: number; size: number }> };

const sizeOf = new Map<number, number>();
for (const sample of profile.samples) sizeOf.set(sample.nodeId, (sizeOf.get(sample.nodeId) ?? 0) + sample.size);

const maps = new Map<string, { sources: string[]; names: string[]; lines: SourceMapSegment[][] } | undefined>();
/** The frame's source position through the bundle's source map, when the file has one next to it. */
function mapped({ functionName, url, lineNumber, columnNumber }: CallFrame): Mapped {
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (!maps.has(path)) {
    const mapFile = `${path}.map`;
    if (!existsSync(mapFile)) maps.set(path, undefined);
    else {
      const raw = JSON.parse(readFileSync(mapFile, "utf8")) as { sources: string[]; names: string[]; mappings: string };
      maps.set(path, { sources: raw.sources, names: raw.names, lines: decode(raw.mappings) });
    }
  }
  const map = maps.get(path);
  const segments = map?.lines[lineNumber];
  if (!map || !segments?.length) return { fn: functionName, source: tidy(path), line: lineNumber + 1 };
  let found = segments[0]!;
  for (const segment of segments) if (segment[0] <= columnNumber) found = segment;
  if (found.length < 4) return { fn: functionName, source: tidy(path), line: lineNumber + 1 };
  return { fn: functionName, source: tidy(map.sources[found[1]!]!), line: found[2]! + 1 };
}

function tidy(source: string): string {
  if (source.includes("node_modules/")) return source.replace(/.*node_modules\//, "");
  return source.replace(/^(\.\.\/)+/, "").replace(/.*\/(src|dist)\//, "$1/");
}

function packageOf(source: string): string {
  if (source.startsWith("src/")) return source.split("/").slice(0, -1).join("/") || source;
  return /^((@[^/]+\/)?[^/]+)\//.exec(source)?.[1] ?? (source || "(native)");
}

const bytes = new Map<string, number>();
const visit = (node: ProfileNode, ours: string): void => {
  const frame = mapped(node.callFrame);
  const label =
    by === "pkg" ? packageOf(frame.source) : `${frame.fn || "(anonymous)"} ${frame.source}:${frame.line}`;
  const own = frame.source.startsWith("src/") ? label : ours;
  const size = sizeOf.get(node.id) ?? 0;
  const key = by === "src" ? own : label;
  if (size > 0) bytes.set(key, (bytes.get(key) ?? 0) + size);
  for (const child of node.children) visit(child, own);
};
visit(profile.head, "(outside src/)");

const total = [...bytes.values()].reduce((sum, size) => sum + size, 0);
const perMessage = (size: number) => `${(size / 1024 / Number(messages)).toFixed(1)} KiB`;
console.log(`allocated ${(total / 2 ** 20).toFixed(1)} MiB in all, ${perMessage(total)} per message`);
for (const [label, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) console.log(`${perMessage(size).padStart(12)}  ${label}`);
