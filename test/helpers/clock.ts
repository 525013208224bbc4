/**
 * Clocks for tests (src/core/clock.ts): a ManualClock that moves only when the test moves it, and a VirtualClock
 * that moves by itself from one timer to the next.
 *
 * The virtual clock is for suites whose subject waits on a Clock (the live reply's throttle, the fake model's
 * streaming): its time moves only from one timer to the next, and only once the process has gone quiet, so what a
 * timer set off (a platform call, rendering a long reply) finishes before the clock moves on. Work costs no time on
 * it, waits cost no real time, and the order of the timers is that of their due times.
 */
import { performance } from "node:perf_hooks";
import type { Clock } from "../../src/core/clock.js";

interface Timer {
  at: number;
  id: number;
  fn: () => void;
}

/** Real time between two looks at the event loop. */
const LOOK_EVERY_MS = 1;
/** The event loop counts as quiet when it was busy for less than this share of the time since the last look. */
const QUIET_UTILIZATION = 0.05;

export class VirtualClock implements Clock {
  private current = Date.now();
  private timers: Timer[] = [];
  private nextId = 0;
  private looking: NodeJS.Timeout | undefined;

  now(): number {
    return this.current;
  }

  setTimer(delayMs: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.current + Math.max(0, delayMs), id, fn });
    this.lookLater(performance.eventLoopUtilization());
    return () => {
      this.timers = this.timers.filter((t) => t.id !== id);
    };
  }

  /** Fires the earliest timer once the loop was quiet since `since`, then looks again while timers are left. */
  private lookLater(since: ReturnType<typeof performance.eventLoopUtilization>): void {
    if (this.looking || this.timers.length === 0) return;
    this.looking = setTimeout(() => {
      this.looking = undefined;
      const busy = performance.eventLoopUtilization(since).utilization;
      const mark = performance.eventLoopUtilization();
      if (busy < QUIET_UTILIZATION) this.fireEarliest();
      this.lookLater(mark);
    }, LOOK_EVERY_MS).unref();
  }

  private fireEarliest(): void {
    const due = this.timers.reduce<Timer | undefined>((first, t) => (!first || t.at < first.at || (t.at === first.at && t.id < first.id) ? t : first), undefined);
    if (!due) return;
    this.timers = this.timers.filter((t) => t !== due);
    this.current = Math.max(this.current, due.at);
    due.fn();
  }
}

/** Time that moves only when the test says so; due timers fire in time order as it passes them. */
export class ManualClock implements Clock {
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 0;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  setTimer(delayMs: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.current + Math.max(0, delayMs), fn, id });
    return () => {
      this.timers = this.timers.filter((t) => t.id !== id);
    };
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves to `at`, firing every timer due by then (including ones they set), earliest first. */
  advanceTo(at: number): void {
    for (;;) {
      const due = this.timers.filter((t) => t.at <= at).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = Math.max(this.current, at);
  }

  advance(ms: number): void {
    this.advanceTo(this.current + ms);
  }
}
