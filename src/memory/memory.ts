/** The memory feature as the gateway holds it: the engine, the profiles, and forgetting a person whole. */
import type { MemoryEngine } from "./memory-engine.js";
import type { ProfileStore } from "./profile.js";
import type { ProfileUser } from "./profile.js";

export interface Memory {
  engine: MemoryEngine;
  profiles: ProfileStore;
  /** Deletes everything kept about a person: memories (theirs, and the group ones they added) and profile. */
  forgetPerson(user: ProfileUser): Promise<{ memories: number; profile: boolean }>;
}
