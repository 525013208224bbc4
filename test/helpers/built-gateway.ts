/**
 * The gateway bundled as `npm run build` bundles it (scripts/bundle.mjs), into a folder of its own under
 * node_modules/.cache: for tests that start many gateway processes, each of which starts several times faster
 * from the bundle than from the TypeScript sources.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

export interface BuiltGateway {
  /** node's arguments before `start` (spawnGateway's `entry`). */
  entry: string[];
  remove(): Promise<void>;
}

export async function buildGateway(): Promise<BuiltGateway> {
  const cache = join("node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  const outDir = await mkdtemp(join(cache, "switchboard-built-"));
  await promisify(execFile)(process.execPath, ["scripts/bundle.mjs", outDir]);
  return { entry: [join(outDir, "cli.js")], remove: () => rm(outDir, { recursive: true, force: true }) };
}
