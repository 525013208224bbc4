/**
 * The fake's getUpdates semantics: updates wait until a call's offset passes them (that confirms them); a call
 * with nothing to return is held up to its timeout and answered as soon as an update arrives. A second call while
 * one is held ends the first with 409, as Telegram does when two pollers share a token.
 */

export interface QueuedUpdate {
  update_id: number;
  [key: string]: unknown;
}

export type PollAnswer = { ok: true; updates: QueuedUpdate[] } | { ok: false; code: number; description: string };

interface Waiter {
  offset: number;
  limit: number;
  answer: (answer: PollAnswer) => void;
  timer: NodeJS.Timeout;
}

export class UpdateQueue {
  private updates: QueuedUpdate[] = [];
  private nextId = 1;
  private waiter: Waiter | undefined;
  /** getUpdates calls ended with 409 because another poller came along: should stay 0 with one poller at a time. */
  conflicts = 0;

  /** Adds an update; one without an update_id gets the next id. Answers its id. */
  add(update: Record<string, unknown>): number {
    const id = typeof update.update_id === "number" ? update.update_id : this.nextId;
    this.nextId = Math.max(this.nextId, id + 1);
    this.updates.push({ ...update, update_id: id });
    this.updates.sort((a, b) => a.update_id - b.update_id);
    this.wake();
    return id;
  }

  /** Updates not yet confirmed by an offset. */
  get pending(): readonly QueuedUpdate[] {
    return this.updates;
  }

  poll(offset: number | undefined, limit: number, timeoutSec: number, answer: (answer: PollAnswer) => void): () => void {
    if (offset !== undefined && offset > 0) this.updates = this.updates.filter((u) => u.update_id >= offset);
    if (this.waiter) {
      this.conflicts += 1;
      this.endWaiter({ ok: false, code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" });
    }
    const from = offset !== undefined && offset > 0 ? offset : 0;
    const ready = this.ready(from, limit);
    if (ready.length > 0 || timeoutSec <= 0) {
      answer({ ok: true, updates: ready });
      return () => {};
    }
    const waiter: Waiter = { offset: from, limit, answer, timer: setTimeout(() => this.endWaiter({ ok: true, updates: [] }), timeoutSec * 1000) };
    this.waiter = waiter;
    return () => {
      if (this.waiter === waiter) {
        clearTimeout(waiter.timer);
        this.waiter = undefined;
      }
    };
  }

  /** Ends a held call, e.g. when the server closes. */
  endWaiter(answer: PollAnswer): void {
    const waiter = this.waiter;
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiter = undefined;
    waiter.answer(answer);
  }

  private wake(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    const ready = this.ready(waiter.offset, waiter.limit);
    if (ready.length > 0) this.endWaiter({ ok: true, updates: ready });
  }

  private ready(offset: number, limit: number): QueuedUpdate[] {
    return this.updates.filter((u) => u.update_id >= offset).slice(0, Math.max(1, Math.min(limit, 100)));
  }
}
