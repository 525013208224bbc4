/** Hot reload: watches the skill roots and calls `onChange` once things have been quiet for a moment. */
import { watch } from "chokidar";
import { relative, sep } from "node:path";
import type { Logger } from "../infra/log.js";
import { SCAN_LIMITS } from "./files.js";

export interface SkillWatcher {
  close(): Promise<void>;
}

const IGNORED_SEGMENTS = new Set(["node_modules", "__pycache__"]);

/** Resolves once the initial scan of the roots is done, so changes from then on are seen. */
export async function watchSkillRoots(
  roots: readonly string[],
  opts: { debounceMs: number; log: Logger; onChange: () => Promise<unknown> },
): Promise<SkillWatcher> {
  // Dot-folders hold installs in progress (and editors' files); a change there is not a skill change.
  const ignored = (path: string) =>
    roots.some((root) => {
      const rel = relative(root, path);
      if (rel === "" || rel.startsWith("..")) return false;
      return rel.split(sep).some((part) => part.startsWith(".") || IGNORED_SEGMENTS.has(part));
    });
  const watcher = watch([...roots], { ignoreInitial: true, depth: SCAN_LIMITS.maxDepth + 1, ignored });
  let timer: NodeJS.Timeout | undefined;
  watcher.on("all", (event, path) => {
    opts.log.debug({ event, path }, "skill files changed");
    clearTimeout(timer);
    timer = setTimeout(() => {
      opts.onChange().catch((err: unknown) => opts.log.error({ err }, "skill reload failed"));
    }, opts.debounceMs);
  });
  watcher.on("error", (err) => opts.log.warn({ err }, "skill watcher error"));
  await new Promise<void>((resolveReady) => watcher.once("ready", () => resolveReady()));
  return {
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
