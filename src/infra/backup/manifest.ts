/** What a backup archive says about itself (manifest.json), and where a store lives, as the commands are told it. */
import { z } from "zod";

export const BACKUP_FORMAT = "switchboard-backup";

const countsSchema = z.record(z.string(), z.number().int());

export const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  formatVersion: z.literal(1),
  /** The version of switchboard that wrote it. */
  switchboard: z.string(),
  createdAt: z.string(),
  store: z.enum(["sqlite", "redis"]),
  keyPrefix: z.string(),
  schemaVersion: z.number().int().nonnegative(),
  counts: z.object({
    /** SQLite: key-value records per namespace; Redis: keys per namespace (lists and sets under their own). */
    records: countsSchema,
    listItems: countsSchema,
    setEntries: countsSchema,
    /** Files of the data dir (workspaces, skills, uploads) beside the store. */
    files: z.number().int().nonnegative(),
  }),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** The store and data dir a command works on: the configuration's. */
export interface StoreLocation {
  url: string | null;
  keyPrefix: string;
  dataDir: string;
}

/** The archive's parts, relative to its root. */
export const ARCHIVE = {
  manifest: "manifest.json",
  store: "store",
  sqlite: "store/switchboard.sqlite",
  redis: "store/redis.jsonl",
  files: "files",
} as const;

/** A command refused, with what to do instead; nothing was changed. */
export class BackupRefusedError extends Error {
  override readonly name = "BackupRefusedError";
}
