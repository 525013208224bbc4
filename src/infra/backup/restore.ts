/**
 * `switchboard restore` and `switchboard migrate`. Restore puts an archive back into the configured store and data
 * dir: a SQLite archive into SQLite or (moved on the way) into Redis, a Redis archive into Redis. A target that
 * holds anything is refused unless forced, and a SQLite data dir a gateway is running on always is. Migrate moves a
 * stopped SQLite gateway's store into Redis, for replicas.
 */
import { createReadStream } from "node:fs";
import { cp, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { extract } from "tar";
import { dataDirInUse } from "../data-dir-lock.js";
import { STORE_SCHEMA_VERSION } from "../store/schema.js";
import { readSqliteRows, renameSqlitePrefix, snapshotSqlite } from "../store/sqlite-snapshot.js";
import { anyRedisKey, copySqliteRowsToRedis, deleteRedisKeys, redisKeySchema, renamePrefix, RedisKeyWriter } from "../store/redis-snapshot.js";
import { parseStoreUrl, type StoreTarget } from "../store/store-url.js";
import { ARCHIVE, BackupRefusedError, manifestSchema, type Manifest, type StoreLocation } from "./manifest.js";
import { withRedis } from "./redis-client.js";

const SQLITE_FILES = ["", "-wal", "-shm", "-journal"];

export async function restoreBackup(opts: { location: StoreLocation; file: string; force: boolean }): Promise<Manifest> {
  const { location, force } = opts;
  const staging = await mkdtemp(join(tmpdir(), "switchboard-restore-"));
  try {
    const manifest = await unpack(opts.file, staging);
    const target = parseStoreUrl(location.url, location.dataDir);
    await refuseRunningGateway(location, target);
    if (target.kind === "sqlite") {
      if (manifest.store !== "sqlite") throw new BackupRefusedError("This is a backup of a Redis store: restore it with store.url (REDIS_URL) set to a Redis.");
      await refuseNonEmpty(force, [await dataDirHolds(location.dataDir), await fileExists(target.file)], `the data dir ${location.dataDir}`);
      for (const suffix of SQLITE_FILES) await rm(target.file + suffix, { force: true });
      await cp(join(staging, ARCHIVE.sqlite), target.file);
      renameSqlitePrefix(target.file, manifest.keyPrefix, location.keyPrefix);
    } else {
      await withRedis(target, async (client) => {
        await refuseNonEmpty(force, [await dataDirHolds(location.dataDir), await anyRedisKey(client, location.keyPrefix)], `Redis ${target.safeUrl} (prefix ${location.keyPrefix}) or the data dir`);
        await deleteRedisKeys(client, location.keyPrefix);
        const writer = new RedisKeyWriter(client);
        if (manifest.store === "sqlite") await readSqliteRows(join(staging, ARCHIVE.sqlite), (rows) => copySqliteRowsToRedis(rows, writer, manifest.keyPrefix, location.keyPrefix));
        else await writeRedisArchive(join(staging, ARCHIVE.redis), writer, manifest.keyPrefix, location.keyPrefix);
      });
    }
    if (await fileExists(join(staging, ARCHIVE.files))) await cp(join(staging, ARCHIVE.files), location.dataDir, { recursive: true, force: true, verbatimSymlinks: true });
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Copies a stopped SQLite gateway's store into the Redis at `to`, under the configured key prefix. */
export async function migrateToRedis(opts: { location: StoreLocation; to: string; force: boolean }): Promise<{ keys: number; skipped: number; safeUrl: string }> {
  const { location, force } = opts;
  const source = parseStoreUrl(location.url, location.dataDir);
  if (source.kind !== "sqlite") throw new BackupRefusedError("The gateway's store is Redis already; migrate moves a SQLite store (back it up and restore it to move Redis).");
  const target = parseStoreUrl(opts.to, location.dataDir);
  if (target.kind !== "redis") throw new BackupRefusedError("--to must be a redis:// or rediss:// URL.");
  if (!(await fileExists(source.file))) throw new BackupRefusedError(`There is no SQLite store at ${source.file} to migrate.`);
  // Whatever it wrote after the copy would stay behind in SQLite.
  if (await dataDirInUse(location.dataDir)) throw new BackupRefusedError(`A gateway is running on ${location.dataDir}: stop it first, then migrate.`);
  const staging = await mkdtemp(join(tmpdir(), "switchboard-migrate-"));
  try {
    const copy = join(staging, "switchboard.sqlite");
    await snapshotSqlite(source.file, copy);
    return await withRedis(target, async (client) => {
      await refuseNonEmpty(force, [await anyRedisKey(client, location.keyPrefix)], `Redis ${target.safeUrl} (prefix ${location.keyPrefix})`);
      await deleteRedisKeys(client, location.keyPrefix);
      const writer = new RedisKeyWriter(client);
      const { skipped } = await readSqliteRows(copy, (rows) => copySqliteRowsToRedis(rows, writer, location.keyPrefix, location.keyPrefix));
      return { keys: writer.written, skipped, safeUrl: target.safeUrl };
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function unpack(file: string, staging: string): Promise<Manifest> {
  try {
    await extract({ file, cwd: staging, strict: true });
  } catch (err) {
    throw new BackupRefusedError(`${file} is not a readable backup archive: ${(err as Error).message}`, { cause: err });
  }
  let manifest: Manifest;
  try {
    manifest = manifestSchema.parse(JSON.parse(await readFile(join(staging, ARCHIVE.manifest), "utf8")));
  } catch (err) {
    throw new BackupRefusedError(`${file} is not a switchboard backup (its manifest is missing or invalid): ${(err as Error).message}`, { cause: err });
  }
  if (manifest.schemaVersion > STORE_SCHEMA_VERSION) {
    throw new BackupRefusedError(
      `${file} holds store schema version ${manifest.schemaVersion}, newer than this switchboard's ${STORE_SCHEMA_VERSION}: restore it with switchboard ${manifest.switchboard} or later.`,
    );
  }
  return manifest;
}

async function writeRedisArchive(file: string, writer: RedisKeyWriter, from: string, to: string): Promise<void> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === "") continue;
    const key = redisKeySchema.parse(JSON.parse(line));
    await writer.write({ ...key, key: renamePrefix(key.key, from, to) });
  }
  await writer.flush();
}

async function refuseRunningGateway(location: StoreLocation, target: StoreTarget): Promise<void> {
  if (target.kind === "sqlite" && (await dataDirInUse(location.dataDir))) {
    throw new BackupRefusedError(`A gateway is running on ${location.dataDir}: stop it before restoring into it.`);
  }
}

async function refuseNonEmpty(force: boolean, holds: boolean[], what: string): Promise<void> {
  if (!force && holds.some(Boolean)) {
    throw new BackupRefusedError(`${what} is not empty; restore into an empty one, or add --force to replace what is there.`);
  }
}

async function dataDirHolds(dataDir: string): Promise<boolean> {
  try {
    return (await readdir(dataDir)).length > 0;
  } catch {
    return false;
  }
}

async function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

