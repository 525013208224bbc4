// `npm start` builds only when the sources changed since the last build: `check` exits 1 when dist/ is missing or
// older than a source file (package-lock.json too: the bundle holds copies of packages), `write` records a build.
// Timestamps are enough here: a false "stale" only costs a build.
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const STAMP = "dist/.build-stamp";
const SOURCES = ["src", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "scripts/bundle.mjs"];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

if (process.argv[2] === "write") {
  writeFileSync(STAMP, new Date().toISOString());
} else {
  let built = 0;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    // No stamp: never built here.
  }
  process.exit(Math.max(...SOURCES.map(newest)) > built ? 1 : 0);
}
