/**
 * `npm run bench`: runs every bench/*.bench.ts (or the ones named on the command line) and prints one table each.
 * Benchmarks measure; they never fail the build.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";
import type { BenchResult } from "./types.js";

const benchDir = fileURLToPath(new URL(".", import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

function formatTable(rows: BenchResult["rows"]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => columns.map((c) => String(r[c] ?? "")));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(columns), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

for (const file of files) {
  const mod = (await import(pathToFileURL(join(benchDir, file)).href)) as { run: () => Promise<BenchResult> };
  const started = performance.now();
  const result = await mod.run();
  console.log(`\n## ${result.name}  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  console.log(`workload: ${result.workload}\n`);
  console.log(formatTable(result.rows));
}
// A bench may leave a fake's long wait armed (the Telegram bench watches the fake for a day); the run is over here.
process.exit(0);
