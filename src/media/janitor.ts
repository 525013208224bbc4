/**
 * Deletes downloaded attachments (every workspace's inbox/ folder) once they are older than the retention time,
 * at start-up and then periodically, so chat media does not pile up on disk.
 */
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../infra/log.js";
import { isErrno } from "../infra/workspace.js";

export const INBOX_DIR = "inbox";

/** Sweeps at least this often, and at most every quarter of the retention time. */
const MAX_SWEEP_INTERVAL_MS = 3_600_000;

export class MediaJanitor {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly workspacesRoot: string,
    private readonly retentionMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    const run = (): void => void this.sweep().catch((err: unknown) => this.log.warn({ err }, "cleaning up downloaded media failed"));
    run();
    this.timer = setInterval(run, Math.min(MAX_SWEEP_INTERVAL_MS, this.retentionMs / 4));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Deletes inbox files last modified before `now - retention`; resolves with how many went. */
  async sweep(now = Date.now()): Promise<number> {
    const cutoff = now - this.retentionMs;
    let removed = 0;
    for (const workspace of await entries(this.workspacesRoot)) {
      const inbox = join(this.workspacesRoot, workspace, INBOX_DIR);
      for (const name of await entries(inbox)) {
        const path = join(inbox, name);
        const info = await stat(path).catch(() => undefined);
        if (!info || info.mtimeMs >= cutoff) continue;
        await rm(path, { recursive: true, force: true });
        removed += 1;
      }
    }
    if (removed > 0) this.log.info({ removed }, "deleted downloaded media past its retention time");
    return removed;
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) return [];
    throw err;
  }
}
