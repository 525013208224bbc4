/**
 * Skills a session equipped (seed 002). Kept in the store beside the session's history, not in it, so that
 * they stay equipped across turns and history compaction, and across replicas on Redis.
 */
import { z } from "zod";
import type { Namespace, Store } from "../infra/store/types.js";

/** Unused sessions drop their list after this long; every equip renews it. */
const EQUIPPED_TTL_MS = 30 * 24 * 3600_000;
const equippedSchema = z.array(z.string());

export class EquippedSkills {
  private readonly records: Namespace<unknown>;

  constructor(store: Store) {
    this.records = store.namespace<unknown>("sessions");
  }

  /** Names in the order they were equipped; a malformed record reads as none. */
  async list(sessionKey: string): Promise<string[]> {
    const parsed = equippedSchema.safeParse(await this.records.get(keyOf(sessionKey)));
    return parsed.success ? parsed.data : [];
  }

  /** Returns false when the skill was equipped already. */
  async equip(sessionKey: string, skill: string): Promise<boolean> {
    const names = await this.list(sessionKey);
    if (names.includes(skill)) return false;
    await this.records.set(keyOf(sessionKey), [...names, skill], EQUIPPED_TTL_MS);
    return true;
  }
}

function keyOf(sessionKey: string): string {
  return `${sessionKey}#equipped-skills`;
}
