/**
 * What a V8 heap snapshot holds, by constructor: `npx tsx bench/heap-summary.ts <file.heapsnapshot> [name...]`.
 * Prints the 40 largest kinds of object by self size with their counts; for each `name` given, what holds objects
 * of that kind (the retaining object's kind and the edge's name) and their self size, to see which map or cache keeps them.
 * Self sizes only (no dominator tree): enough to name what grows with users, not an exact retained size.
 */
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] }; node_count: number };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, ...wanted] = process.argv.slice(2);
if (!file) throw new Error("usage: tsx bench/heap-summary.ts <file.heapsnapshot> [constructor...]");
const heap = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
const { meta } = heap.snapshot;
const nodeWidth = meta.node_fields.length;
const edgeWidth = meta.edge_fields.length;
const field = (name: string) => meta.node_fields.indexOf(name);
const [typeAt, nameAt, sizeAt, edgesAt] = [field("type"), field("name"), field("self_size"), field("edge_count")];
const [edgeTypeAt, edgeNameAt, edgeToAt] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number];
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];

const count = heap.nodes.length / nodeWidth;
/** "object:Foo", "string", "closure:bar", "native:…": the kind a node is summed under. */
const kindOf = (node: number): string => {
  const type = nodeTypes[heap.nodes[node * nodeWidth + typeAt]!]!;
  if (type === "object" || type === "closure" || type === "native") return `${type}:${heap.strings[heap.nodes[node * nodeWidth + nameAt]!]}`;
  return type;
};

const totals = new Map<string, { size: number; count: number }>();
let all = 0;
for (let node = 0; node < count; node++) {
  const kind = kindOf(node);
  const size = heap.nodes[node * nodeWidth + sizeAt]!;
  all += size;
  const total = totals.get(kind) ?? { size: 0, count: 0 };
  total.size += size;
  total.count += 1;
  totals.set(kind, total);
}
const mib = (n: number) => `${(n / 2 ** 20).toFixed(2)} MiB`;
console.log(`${count} nodes, ${mib(all)} self size in all`);
for (const [kind, total] of [...totals].sort((a, b) => b[1].size - a[1].size).slice(0, 40)) {
  console.log(`${mib(total.size).padStart(12)}  ${String(total.count).padStart(9)}  ${kind.slice(0, 100)}`);
}

if (wanted.length > 0) {
  const holders = new Map<string, Map<string, { count: number; size: number }>>(wanted.map((w) => [w, new Map()]));
  let edge = 0;
  for (let node = 0; node < count; node++) {
    const edges = heap.nodes[node * nodeWidth + edgesAt]!;
    for (let i = 0; i < edges; i++, edge++) {
      const to = heap.edges[edge * edgeWidth + edgeToAt]! / nodeWidth;
      const byHolder = holders.get(kindOf(to));
      if (!byHolder) continue;
      const edgeType = edgeTypes[heap.edges[edge * edgeWidth + edgeTypeAt]!]!;
      if (edgeType === "weak") continue;
      const nameOrIndex = heap.edges[edge * edgeWidth + edgeNameAt]!;
      const label = edgeType === "element" || edgeType === "hidden" ? `[${edgeType}]` : heap.strings[nameOrIndex];
      const holder = `${kindOf(node)} .${label}`;
      const held = byHolder.get(holder) ?? { count: 0, size: 0 };
      held.count += 1;
      held.size += heap.nodes[to * nodeWidth + sizeAt]!;
      byHolder.set(holder, held);
    }
  }
  for (const [kind, byHolder] of holders) {
    console.log(`\nheld: ${kind}`);
    for (const [holder, held] of [...byHolder].sort((a, b) => b[1].size - a[1].size).slice(0, 12)) {
      console.log(`${mib(held.size).padStart(12)}  ${String(held.count).padStart(9)}  ${holder}`);
    }
  }
}
