/**
 * One gateway per SQLite data dir: a second `switchboard start` on the same folder would share the database
 * file and double every reply. proper-lockfile keeps a lock folder beside the database, refreshed while the
 * gateway runs; a lock left by a killed process goes stale after a few seconds, so a restart after a crash waits
 * that long instead of being refused. Several replicas share state through Redis instead, and take no lock.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import lockfile from "proper-lockfile";

const STALE_MS = 5_000;

export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `Another gateway is already running on the data dir ${dataDir}. Stop it first, or give this one its own ` +
        "data dir (SWITCHBOARD_DATA_DIR); several replicas share one Redis store (REDIS_URL) instead.",
    );
    this.name = "DataDirLockedError";
  }
}

/** Takes the data dir's lock; resolves with its release. `onCompromised` hears of a lock lost while running. */
export async function lockDataDir(dataDir: string, onCompromised: (err: Error) => void): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: join(dataDir, "gateway.lock"),
      stale: STALE_MS,
      update: STALE_MS / 2,
      // Long enough for the lock of a process that was killed to go stale.
      retries: { retries: 6, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 },
      onCompromised,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOCKED") throw new DataDirLockedError(dataDir);
    throw err;
  }
}

/** Whether a gateway holds the data dir's lock now (a lock gone stale is nobody's). */
export async function dataDirInUse(dataDir: string): Promise<boolean> {
  try {
    return await lockfile.check(dataDir, { lockfilePath: join(dataDir, "gateway.lock"), stale: STALE_MS });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}
