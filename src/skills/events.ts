/**
 * The skills event bus: typed, in-process and synchronous, so a subscriber has seen an event when the call that
 * emitted it returns. The audit log is one subscriber.
 */
import type { Logger } from "../infra/log.js";
import type { SkillType } from "./types.js";

export interface SkillEvents {
  /** After every (re)load: the skills now available. */
  "skill.registered": { skills: Array<{ name: string; description: string; type: SkillType }> };
  "skill.equipped": { session: string; skill: string };
  /** A skill failed to load, or one of its runs could not start. */
  "skill.error": { skill: string; error: string };
  "skill.exec": { skill: string; script: string; exitCode: number | null; durationMs: number };
}

export type SkillEventName = keyof SkillEvents;
type Listener<K extends SkillEventName> = (payload: SkillEvents[K]) => void;

export class SkillEventBus {
  private readonly listeners = new Map<SkillEventName, Set<Listener<never>>>();

  constructor(private readonly log: Logger) {}

  /** Returns the function that unsubscribes. */
  on<K extends SkillEventName>(name: K, listener: Listener<K>): () => void {
    const set = this.listeners.get(name) ?? new Set();
    set.add(listener as Listener<never>);
    this.listeners.set(name, set);
    return () => set.delete(listener as Listener<never>);
  }

  /** A throwing listener is logged and does not stop the others or the emitter. */
  emit<K extends SkillEventName>(name: K, payload: SkillEvents[K]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        (listener as Listener<K>)(payload);
      } catch (err) {
        this.log.error({ err, event: name }, "skill event listener failed");
      }
    }
  }
}

/** Writes every skill event to the log, the audit trail of what skills did. */
export function attachAuditLog(bus: SkillEventBus, log: Logger): () => void {
  const offs = [
    bus.on("skill.registered", ({ skills }) => log.info({ event: "skill.registered", count: skills.length }, "skills registered")),
    bus.on("skill.equipped", (p) => log.info({ event: "skill.equipped", ...p }, "skill equipped")),
    bus.on("skill.error", (p) => log.warn({ event: "skill.error", ...p }, "skill error")),
    bus.on("skill.exec", (p) => log.info({ event: "skill.exec", ...p }, "skill script ran")),
  ];
  return () => offs.forEach((off) => off());
}
