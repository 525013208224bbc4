/**
 * The store's schema version: what shape the stored records have. Each migration brings a store from the version
 * before it to its own; they run at start, in order, under a lock (replicas start together), and each records its
 * version as soon as it is done, so a crash repeats only the one it interrupted. A store written by a newer gateway
 * is refused: this one would misread what it does not know, and could overwrite it.
 */
import type { Logger } from "../log.js";
import type { Store } from "./types.js";

export interface StoreMigration {
  /** The version the store has once this migration ran; one more than the migration before it. */
  version: number;
  /** What it changes, for the log. */
  describe: string;
  up(store: Store, log: Logger): Promise<void>;
}

/** The meta record holding the version (absent: a store from before versions were recorded, i.e. version 0). */
export const SCHEMA_KEY = "store-schema";

export const STORE_MIGRATIONS: readonly StoreMigration[] = [
  // The first version is the layout every store already had; recording it is all there is to do.
  { version: 1, describe: "records the schema version", up: async () => undefined },
];

export const STORE_SCHEMA_VERSION = latestVersion(STORE_MIGRATIONS);

export class StoreSchemaError extends Error {
  override readonly name = "StoreSchemaError";
}

/** The store's recorded version, 0 when none is. */
export async function schemaVersion(store: Store): Promise<number> {
  return (await store.namespace<{ version: number }>("meta").get(SCHEMA_KEY))?.version ?? 0;
}

/** Runs the migrations the store has not had yet; refuses a store newer than `migrations` know. Its version after. */
export async function prepareSchema(store: Store, log: Logger, migrations: readonly StoreMigration[] = STORE_MIGRATIONS): Promise<number> {
  const latest = latestVersion(migrations);
  return store.coordinator.withLock(
    SCHEMA_KEY,
    async () => {
      const found = await schemaVersion(store);
      if (found > latest) {
        throw new StoreSchemaError(
          `The store has schema version ${found}, written by a newer switchboard; this one knows up to ${latest}. ` +
            "Run the newer version, or restore a backup taken before the upgrade.",
        );
      }
      for (const migration of migrations.filter((m) => m.version > found)) {
        log.info({ from: migration.version - 1, to: migration.version }, `store migration: ${migration.describe}`);
        await migration.up(store, log);
        await store.namespace<{ version: number }>("meta").set(SCHEMA_KEY, { version: migration.version });
      }
      return Math.max(found, latest);
    },
    { waitMs: 60_000 },
  );
}

function latestVersion(migrations: readonly StoreMigration[]): number {
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1) throw new Error(`store migration ${i} has version ${migration.version}; expected ${i + 1}`);
  });
  return migrations.length;
}
