/**
 * `npx tsx bench/gc-object-stats.ts <file> [messages]`: what V8's major GCs found dead, by kind of object, per
 * message when `messages` is given. The file is the output of a bench run whose subject ran with
 * `--track-gc-object-stats --trace-gc-object-stats` (BENCH_TG_NODE_FLAGS): each major GC prints its live and dead
 * objects as JSON lines. Dead objects are what the old generation held as garbage: what made the major GCs come.
 */
import { readFileSync } from "node:fs";

interface StatsLine {
  id: number;
  key: "live" | "dead";
  type: string;
  instance_type_name?: string;
  overall?: number;
  count?: number;
}

const [file, messages = "1"] = process.argv.slice(2);
if (!file) throw new Error("usage: tsx bench/gc-object-stats.ts <file> [messages]");

const lines = readFileSync(file, "utf8")
  .split("\n")
  .filter((line) => line.startsWith('{ "isolate"'))
  .map((line) => JSON.parse(line) as StatsLine);
const dead = new Map<string, { bytes: number; count: number }>();
for (const line of lines) {
  if (line.key !== "dead" || line.type !== "instance_type_data" || !line.instance_type_name) continue;
  const sum = dead.get(line.instance_type_name) ?? { bytes: 0, count: 0 };
  sum.bytes += line.overall ?? 0;
  sum.count += line.count ?? 0;
  dead.set(line.instance_type_name, sum);
}

const per = Number(messages);
const total = [...dead.values()].reduce((sum, { bytes }) => sum + bytes, 0);
console.log(`${new Set(lines.map((line) => line.id)).size} major GCs found ${(total / 1024 / per).toFixed(1)} KiB dead per message`);
for (const [kind, { bytes, count }] of [...dead].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 20)) {
  console.log(`${(bytes / 1024 / per).toFixed(2).padStart(9)} KiB ${(count / per).toFixed(1).padStart(7)} objects  ${kind}`);
}
