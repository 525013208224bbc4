/**
 * The index as releases before the log (index-log.ts) kept it: 1,024 shard keys of id -> [due, cron], each
 * user's task ids under their own key, and a revision key. Read once, when a store has no log yet.
 */
import type { Namespace } from "../infra/store/types.js";
import { creatorOf, type LiveEntry, type TaskRecord } from "./types.js";

const SHARDS = 1_024;
/** Task records read at once while converting: the old shards do not say whose a task is. */
const READ_CONCURRENCY = 64;

type ShardValue = Record<string, [due: number | null, cron: string | null]>;

export interface OldIndex {
  entries: Array<[id: string, entry: LiveEntry]>;
  /** Deletes the old keys, once their content is stored in the new layout. */
  remove(): Promise<void>;
}

export async function readOldIndex(ns: Namespace<unknown>): Promise<OldIndex> {
  const shardKeys = Array.from({ length: SHARDS }, (_, i) => `index:${i}`);
  const shards = await Promise.all(shardKeys.map((key) => ns.get(key) as Promise<ShardValue | undefined>));
  const indexed = shards.flatMap((shard) => Object.entries(shard ?? {}));
  const entries: OldIndex["entries"] = [];
  const creators = new Set<string>();
  for (let start = 0; start < indexed.length; start += READ_CONCURRENCY) {
    const chunk = indexed.slice(start, start + READ_CONCURRENCY);
    const records = await Promise.all(chunk.map(([id]) => ns.get(`task:${id}`) as Promise<TaskRecord | undefined>));
    chunk.forEach(([id, [due, cron]], i) => {
      const record = records[i];
      // An entry without its record was a task whose record expired: nothing to run or list.
      if (!record) return;
      creators.add(`creator:${creatorOf(record.creator)}`);
      entries.push([id, { due, cron, creator: creatorOf(record.creator) }]);
    });
  }
  return {
    entries,
    remove: async () => {
      const present = shardKeys.filter((_, i) => shards[i] !== undefined);
      await Promise.all([...present, ...creators, "revision"].map((key) => ns.delete(key)));
    },
  };
}
