/**
 * The cap on concurrent turns per user: how many sessions may run (or queue) a turn for the same user at once.
 * Turns of one session already run one after another, so more messages in the same session take no new slot.
 * On Redis the slots are counted for every replica (the store's slot pools, whose slots expire with a replica that
 * died); on SQLite in this process, like the session queue they guard.
 */
import type { Store } from "../infra/store/types.js";

/** How long a replica's slot outlives its last renewal (renewed every third of it while the turn lasts). */
const SHARED_SLOT_LEASE_MS = 30_000;

export class TurnSlots {
  /** user -> session -> turns in flight */
  private readonly inFlight = new Map<string, Map<string, number>>();

  constructor(
    private readonly maxSessionsPerUser: number,
    private readonly store: Store,
  ) {}

  /** A release function, or null when the user already has turns in `maxSessionsPerUser` other sessions. */
  async claim(user: string, session: string): Promise<(() => void) | null> {
    const shared = this.store.coordinator.shared;
    if (!shared) return this.claimHere(user, session);
    const release = await shared.claimSlot(`turns:${user}`, session, this.maxSessionsPerUser, { leaseMs: SHARED_SLOT_LEASE_MS });
    return release && (() => void release());
  }

  private claimHere(user: string, session: string): (() => void) | null {
    const sessions = this.inFlight.get(user) ?? new Map<string, number>();
    const current = sessions.get(session) ?? 0;
    if (current === 0 && sessions.size >= this.maxSessionsPerUser) return null;
    sessions.set(session, current + 1);
    this.inFlight.set(user, sessions);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (sessions.get(session) ?? 1) - 1;
      if (left > 0) sessions.set(session, left);
      else sessions.delete(session);
      if (sessions.size === 0 && this.inFlight.get(user) === sessions) this.inFlight.delete(user);
    };
  }
}
