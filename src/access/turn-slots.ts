/**
 * The cap on concurrent turns per user: how many sessions may run (or queue) a turn for the same user at once.
 * Turns of one session already run one after another, so more messages in the same session take no new slot.
 * Counted in this process, like the session queue it guards.
 */
export class TurnSlots {
  /** user -> session -> turns in flight */
  private readonly inFlight = new Map<string, Map<string, number>>();

  constructor(private readonly maxSessionsPerUser: number) {}

  /** A release function, or null when the user already has turns in `maxSessionsPerUser` other sessions. */
  claim(user: string, session: string): (() => void) | null {
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
