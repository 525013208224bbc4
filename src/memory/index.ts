/** Long-term memory and user profiles, built from the `memory` settings. */
import type { Logger } from "../log.js";
import type { Store } from "../store/types.js";
import type { MemoryConfig } from "./config.js";
import { createEmbedder, type Embedder } from "./embeddings.js";
import { MemoryEngine } from "./memory-engine.js";
import { ProfileStore, type ProfileUser, type TimezoneRecord } from "./profile.js";

export { memoryConfigSchema, type MemoryConfig } from "./config.js";
export { MemoryEngine } from "./memory-engine.js";
export { ProfileStore, type TimezoneRecord } from "./profile.js";
export { createTurnRecall } from "./turn-recall.js";
export { memoryCommands } from "./commands.js";
export { registerMemoryCommands } from "./cli.js";

export interface Memory {
  engine: MemoryEngine;
  profiles: ProfileStore;
  /** Deletes everything kept about a person: memories (theirs, and the group ones they added) and profile. */
  forgetPerson(user: ProfileUser): Promise<{ memories: number; profile: boolean }>;
}

export interface MemoryOptions {
  store: Store;
  config: MemoryConfig;
  log: Logger;
  timezones: TimezoneRecord;
  /** Default: built from config.embeddings (null when it is null). */
  embedder?: Embedder | null;
}

export function createMemory(opts: MemoryOptions): Memory {
  const log = opts.log.child({ component: "memory" });
  const embedder = opts.embedder !== undefined ? opts.embedder : opts.config.embeddings ? createEmbedder(opts.config.embeddings) : null;
  const engine = new MemoryEngine({ store: opts.store, config: opts.config, log, embedder });
  const profiles = new ProfileStore(opts.store, opts.timezones);
  return {
    engine,
    profiles,
    forgetPerson: async (user) => ({ memories: await engine.forgetAll(user), profile: await profiles.forget(user) }),
  };
}
