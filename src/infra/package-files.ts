/**
 * The files the gateway ships beside its code (config/, skills/, public/, package.json), found from the package
 * root: the nearest folder above this module that holds a package.json. The code runs from src/ under tsx (tests,
 * `npx tsx`) and from dist/, where the build merges modules into a few chunks, so a path relative to a module's
 * own file would differ between the two.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function packageRootAbove(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, "package.json"))) return at;
    if (dirname(at) === at) throw new Error(`no package.json in ${dir} or above it: the gateway's own files (config/, public/, skills/) cannot be found`);
  }
}

export const PACKAGE_ROOT = packageRootAbove(dirname(fileURLToPath(import.meta.url)));

/** A shipped file or folder by its path in the package, e.g. `packageFile("config", "default.yaml")`. */
export function packageFile(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}
