/** What a store URL points at, and how to name it in messages without its password. */
import { join, resolve } from "node:path";

export type StoreTarget =
  | { kind: "sqlite"; file: string }
  | { kind: "redis"; url: string; safeUrl: string; password: string | null };

export const DEFAULT_SQLITE_FILE = "switchboard.sqlite";

/** null or `sqlite://` alone: `<dataDir>/switchboard.sqlite`; `sqlite://PATH`: PATH (relative to the cwd). */
export function parseStoreUrl(url: string | null, dataDir: string): StoreTarget {
  if (url === null || url === "sqlite://") return { kind: "sqlite", file: resolve(join(dataDir, DEFAULT_SQLITE_FILE)) };
  if (url.startsWith("sqlite://")) return { kind: "sqlite", file: resolve(url.slice("sqlite://".length)) };
  if (!/^rediss?:\/\//.test(url)) {
    throw new Error("store URL must start with sqlite://, redis:// or rediss://");
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The URL may hold a password: only its scheme goes into the message.
    throw new Error(`store URL is not a valid ${url.startsWith("rediss") ? "rediss" : "redis"}:// URL`);
  }
  const password = parsed.password === "" ? null : decodeURIComponent(parsed.password);
  if (password !== null) parsed.password = "***";
  return { kind: "redis", url, safeUrl: parsed.toString(), password };
}
