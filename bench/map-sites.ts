/**
 * `npx tsx bench/map-sites.ts <v8.log> [fromMicros] [top]`: the hidden classes (V8 maps) a process made after
 * `fromMicros`, by how (a transition, a normalization, ...), the property and the function whose code made them.
 * The log is from a run with `--log-maps --logfile=/tmp/maps-%p.log --no-logfile-per-isolate` (BENCH_TG_NODE_FLAGS
 * of the telegram bench; %p keeps the cold-start runs from overwriting the subject's log). Maps live in the old
 * generation, so one made per message is garbage a major GC has to come for. A transition whose reason reads
 * "prototype" started from a map outside V8's transition tree (an object literal that began with a spread, a
 * prototype, ...): it is made again every time that code runs.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

interface CodeRange {
  start: number;
  size: number;
  name: string;
}

const [file, from = "0", top = "60"] = process.argv.slice(2);
if (!file) throw new Error("usage: map-sites.ts <v8.log> [fromMicros] [top]");

// The log's lines are comma-separated: code-creation,<kind>,<tier>,<time>,<start>,<size>,<name>,...
// and map,<how>,<time>,<from>,<to>,<pc>,<line>,<column>,<reason>,<property>.
const code: CodeRange[] = [];
const made: Array<{ how: string; pc: number; reason: string; property: string }> = [];
for await (const line of createInterface({ input: createReadStream(file) })) {
  const fields = line.split(",");
  if (fields[0] === "code-creation") {
    code.push({ start: Number(fields[4]), size: Number(fields[5]), name: fields.slice(6, -2).join(",") || (fields[6] ?? "") });
  } else if (fields[0] === "map" && Number(fields[2]) >= Number(from)) {
    made.push({ how: fields[1] ?? "", pc: Number(fields[5]), reason: fields[8] ?? "", property: fields.slice(9).join(",") });
  }
}
code.sort((a, b) => a.start - b.start);

/** The code whose range holds `pc` (the latest made of those that start at or below it). */
function codeAt(pc: number): string {
  let low = 0;
  let high = code.length - 1;
  let below = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (code[mid]!.start <= pc) {
      below = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  for (let i = below; i >= 0 && i > below - 50; i--) if (pc < code[i]!.start + code[i]!.size) return code[i]!.name;
  return "?";
}

const counts = new Map<string, number>();
for (const map of made) {
  const key = `${map.how} ${map.reason} ${map.property.slice(0, 40)} @ ${codeAt(map.pc).slice(0, 140)}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
console.log(`${made.length} maps made after ${from} us`);
for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(String(count).padStart(7), key);
