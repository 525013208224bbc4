/**
 * What a Redis server may lose of the gateway's keys: everything at a restart when it keeps nothing on disk (no
 * append-only file, no snapshots), and any key at all when its eviction policy may drop keys under memory pressure.
 * Either loses reminders, the outbox and the dedup memory without a word, so the doctor and the start-up log say so.
 * Managed services often refuse CONFIG: then INFO, which tells the AOF and the policy but not the snapshot rules.
 */
import type { RedisClientType } from "@keyv/redis";

export async function redisDurabilityWarnings(client: RedisClientType): Promise<string[]> {
  const settings = await readSettings(client);
  const warnings: string[] = [];
  if (settings.appendonly === "no" && settings.save === "") {
    warnings.push("Redis keeps nothing on disk (appendonly no, no save points): a Redis restart loses every reminder, queued reply and dedup marker; set appendonly yes");
  }
  if (settings.policy !== "noeviction") {
    warnings.push(`Redis may evict keys (maxmemory-policy ${settings.policy}): under memory pressure it silently drops reminders, queued replies and dedup markers; set maxmemory-policy noeviction`);
  }
  if (settings.save === undefined && settings.appendonly === "no") {
    warnings.push("Redis refused CONFIG GET, and its AOF is off: unless it takes snapshots, a restart loses the gateway's keys");
  }
  return warnings;
}

interface Settings {
  appendonly: string;
  /** The snapshot rules ("" for none); undefined when CONFIG is refused. */
  save: string | undefined;
  policy: string;
}

async function readSettings(client: RedisClientType): Promise<Settings> {
  try {
    const config = await client.configGet(["appendonly", "save", "maxmemory-policy"]);
    return { appendonly: config.appendonly ?? "no", save: (config.save ?? "").trim(), policy: config["maxmemory-policy"] ?? "noeviction" };
  } catch {
    const info = `${await client.info("persistence")}\n${await client.info("memory")}`;
    const field = (name: string) => new RegExp(`^${name}:(.*)$`, "m").exec(info)?.[1]?.trim();
    return { appendonly: field("aof_enabled") === "1" ? "yes" : "no", save: undefined, policy: field("maxmemory_policy") ?? "noeviction" };
  }
}
