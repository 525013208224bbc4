/** Long-term memory and user profiles, built from the `memory` settings. */
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { MemoryConfig } from "./config.js";
import { createEmbedder, type Embedder } from "./embeddings.js";
import { MemoryEngine } from "./memory-engine.js";
import type { Memory } from "./memory.js";
import { ProfileStore, type TimezoneRecord } from "./profile.js";

export { memoryConfigSchema, type MemoryConfig } from "./config.js";
export { MemoryEngine } from "./memory-engine.js";
export { ProfileStore, type TimezoneRecord } from "./profile.js";
export { createTurnRecall } from "./turn-recall.js";
export { memoryCommands } from "./commands.js";
export { registerMemoryCommands } from "./cli.js";
export type { Memory } from "./memory.js";


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
