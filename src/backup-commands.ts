/** The commands that copy and move what the gateway keeps: `backup`, `restore`, `migrate`. */
import type { Command } from "commander";
import type { Config } from "./config.js";
import { writeBackup } from "./infra/backup/backup.js";
import type { Manifest, StoreLocation } from "./infra/backup/manifest.js";
import { migrateToRedis, restoreBackup } from "./infra/backup/restore.js";

export function registerBackupCommands(program: Command, config: () => Config, version: string): void {
  const location = (): StoreLocation => {
    const { store, dataDir } = config();
    return { url: store.url, keyPrefix: store.keyPrefix, dataDir };
  };

  program
    .command("backup <file>")
    .description("write the store and the data dir to a .tar.gz archive, while the gateway runs")
    .action(async (file: string) => {
      const manifest = await writeBackup({ location: location(), file, version });
      console.log(`backed up the ${manifest.store} store to ${file}: ${summary(manifest)}`);
    });

  program
    .command("restore <file>")
    .description("restore an archive into an empty data dir or Redis (the configured store)")
    .option("--force", "replace what the target holds")
    .action(async (file: string, opts: { force?: boolean }) => {
      const manifest = await restoreBackup({ location: location(), file, force: opts.force === true });
      console.log(`restored ${file} (switchboard ${manifest.switchboard}, ${manifest.createdAt}): ${summary(manifest)}`);
    });

  program
    .command("migrate")
    .description("move a stopped SQLite gateway's store to Redis, for replicas")
    .requiredOption("--to <url>", "the Redis URL (redis:// or rediss://)")
    .option("--force", "replace the gateway's keys already in that Redis")
    .action(async (opts: { to: string; force?: boolean }) => {
      const { keys, skipped, safeUrl } = await migrateToRedis({ location: location(), to: opts.to, force: opts.force === true });
      console.log(`copied ${keys} keys to ${safeUrl}${skipped > 0 ? ` (${skipped} rows of another key prefix left behind)` : ""}`);
      console.log("Now set store.url (or REDIS_URL) to that URL and start the gateway; each replica keeps its own data dir.");
    });
}

function summary(manifest: Manifest): string {
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  const { records, listItems, setEntries, files } = manifest.counts;
  return `${total(records)} records, ${total(listItems)} list items, ${total(setEntries)} queued entries, ${files} files`;
}
