/**
 * Skills a session equipped. Kept in the store beside the session's history, not in it, so that
 * they stay equipped across turns and history compaction, and across replicas on Redis.
 */
import { z } from "zod";
import { CachedNamespace } from "../infra/store/cached-namespace.js";
import type { Namespace, Store } from "../infra/store/types.js";

/** Unused sessions drop their list after this long; every equip renews it. */
const EQUIPPED_TTL_MS = 30 * 24 * 3600_000;
const equippedSchema = z.array(z.string());
/** Read on every turn, written when a skill is equipped; a change made elsewhere is seen within the TTL. */
const CACHE = { topic: "skills.equipped-changed", ttlMs: 30_000, max: 2_000 };

export class EquippedSkills {
  private readonly stored: Namespace<unknown>;
  private readonly records: CachedNamespace<unknown>;

  constructor(store: Store) {
    this.stored = store.namespace<unknown>("sessions");
    this.records = new CachedNamespace(this.stored, store.bus, CACHE);
  }

  /** Names in the order they were equipped; a malformed record reads as none. */
  async list(sessionKey: string): Promise<string[]> {
    return namesOf(await this.records.get(keyOf(sessionKey)));
  }

  /** Returns false when the skill was equipped already. */
  async equip(sessionKey: string, skill: string): Promise<boolean> {
    // From the store, not the cache: the new list is written from it.
    const names = namesOf(await this.stored.get(keyOf(sessionKey)));
    if (names.includes(skill)) return false;
    await this.records.set(keyOf(sessionKey), [...names, skill], EQUIPPED_TTL_MS);
    return true;
  }
}

function namesOf(stored: unknown): string[] {
  const parsed = equippedSchema.safeParse(stored);
  return parsed.success ? parsed.data : [];
}

function keyOf(sessionKey: string): string {
  return `${sessionKey}#equipped-skills`;
}
