/**
 * `switchboard backup`: the store and the rest of the data dir in one gzipped tar, while the gateway runs. SQLite
 * is copied with its online backup API (one consistent copy, however busy the gateway is); Redis's keys under the
 * gateway's prefix are read out one by one (redis-snapshot.ts). The archive is written beside its name and renamed
 * into place, so a failed backup never leaves a truncated file under the name asked for; it is the owner's only (it
 * holds what the gateway keeps, sessions and access lists included).
 */
import { createWriteStream } from "node:fs";
import { chmod, cp, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { once } from "node:events";
import { create as createTar } from "tar";
import { SCHEMA_KEY } from "../store/schema.js";
import { namespaceOf, snapshotSqlite, sqliteContents } from "../store/sqlite-snapshot.js";
import { readRedisKeys } from "../store/redis-snapshot.js";
import { parseStoreUrl } from "../store/store-url.js";
import { ARCHIVE, BACKUP_FORMAT, type Manifest, type StoreLocation } from "./manifest.js";
import { withRedis } from "./redis-client.js";

/** Files of the data dir that are not copied as files: the live database (copied through SQLite) and the lock. */
const LIVE_FILE_SUFFIXES = ["", "-wal", "-shm", "-journal"];

export async function writeBackup(opts: { location: StoreLocation; file: string; version: string }): Promise<Manifest> {
  const { location } = opts;
  const file = resolve(opts.file);
  const staging = await mkdtemp(join(tmpdir(), "switchboard-backup-"));
  try {
    await mkdir(join(staging, ARCHIVE.store));
    const target = parseStoreUrl(location.url, location.dataDir);
    const store =
      target.kind === "sqlite"
        ? await snapshotSqliteStore(target.file, join(staging, ARCHIVE.sqlite), location.keyPrefix)
        : await withRedis(target, (client) => writeRedisKeys(client, join(staging, ARCHIVE.redis), location.keyPrefix));
    const skip = new Set([join(resolve(location.dataDir), "gateway.lock"), ...(target.kind === "sqlite" ? LIVE_FILE_SUFFIXES.map((s) => target.file + s) : [])]);
    const files = await copyDataFiles(location.dataDir, join(staging, ARCHIVE.files), (path) => !skip.has(resolve(path)) && resolve(path) !== file);
    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      formatVersion: 1,
      switchboard: opts.version,
      createdAt: new Date().toISOString(),
      store: target.kind,
      keyPrefix: location.keyPrefix,
      schemaVersion: store.schemaVersion,
      counts: { records: store.records, listItems: store.listItems, setEntries: store.setEntries, files },
    };
    await writeFile(join(staging, ARCHIVE.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
    const partial = `${file}.partial`;
    await mkdir(dirname(file), { recursive: true });
    await createTar({ gzip: true, file: partial, cwd: staging, portable: true }, [ARCHIVE.manifest, ARCHIVE.store, ARCHIVE.files]);
    await chmod(partial, 0o600);
    await rename(partial, file);
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

type StoreSummary = Pick<Manifest["counts"], "records" | "listItems" | "setEntries"> & { schemaVersion: number };

async function snapshotSqliteStore(file: string, destination: string, keyPrefix: string): Promise<StoreSummary> {
  try {
    await stat(file);
  } catch {
    throw new Error(`there is no store at ${file} to back up; is the data dir (or store.url) the gateway's?`);
  }
  await snapshotSqlite(file, destination);
  return sqliteContents(destination, keyPrefix);
}

async function writeRedisKeys(client: Parameters<typeof readRedisKeys>[0], destination: string, keyPrefix: string): Promise<StoreSummary> {
  const summary: StoreSummary = { records: {}, listItems: {}, setEntries: {}, schemaVersion: 0 };
  const out = createWriteStream(destination);
  const schemaKey = `${keyPrefix}meta:${SCHEMA_KEY}`;
  await readRedisKeys(client, keyPrefix, async (key) => {
    const namespace = namespaceOf(key.key, keyPrefix) ?? "(other)";
    // Lists and entry sets keep their namespace after a kind of their own (redis-lists.ts, redis-sets.ts).
    const inner = (kind: string) => namespaceOf(key.key, `${keyPrefix}${kind}:`) ?? namespace;
    const add = (counts: Record<string, number>, name: string, n: number) => (counts[name] = (counts[name] ?? 0) + n);
    if (key.type === "list" && namespace === "lists") add(summary.listItems, inner("lists"), key.value.length);
    else if (key.type === "hash" && namespace === "sets") add(summary.setEntries, inner("sets"), Object.keys(key.value).length);
    else add(summary.records, namespace, 1);
    if (key.key === schemaKey && key.type === "string") summary.schemaVersion = (JSON.parse(key.value) as { value?: { version?: number } }).value?.version ?? 0;
    if (!out.write(`${JSON.stringify(key)}\n`)) await once(out, "drain");
  });
  out.end();
  await once(out, "finish");
  return summary;
}

/** Copies the data dir's files but the skipped ones; how many were copied (none when there is no data dir). */
async function copyDataFiles(dataDir: string, destination: string, keep: (path: string) => boolean): Promise<number> {
  try {
    await stat(dataDir);
  } catch {
    return 0;
  }
  await cp(dataDir, destination, { recursive: true, filter: keep, verbatimSymlinks: true });
  const entries = await readdir(destination, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}
