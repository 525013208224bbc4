/**
 * The one-shot (and interval) tasks waiting for their time: a min-heap of due times with a single timer set for
 * the earliest, so 100,000 pending reminders cost a heap entry each and no timer of their own. Entries that were
 * replaced or removed stay in the heap until they surface (and are skipped), which keeps changes O(log n).
 */
import type { Clock } from "../core/clock.js";

export interface DueEntry {
  id: string;
  due: number;
}

/** Wake up at least this often anyway: a long sleep would miss a wall-clock jump (a suspended laptop). */
const MAX_SLEEP_MS = 60 * 60_000;

export class DueIndex {
  private readonly due = new Map<string, number>();
  private heap: DueEntry[] = [];
  private cancelTimer: (() => void) | null = null;
  private timerAt: number | null = null;
  private running = false;

  /** `onDue` receives every entry whose time has come, earliest first; they are removed before the call. */
  constructor(
    private readonly clock: Clock,
    private readonly onDue: (entries: DueEntry[]) => void,
  ) {}

  get size(): number {
    return this.due.size;
  }

  dueOf(id: string): number | undefined {
    return this.due.get(id);
  }

  set(id: string, due: number): void {
    if (this.due.get(id) === due) return;
    this.due.set(id, due);
    this.push({ id, due });
    if (this.timerAt === null || due < this.timerAt) this.arm();
  }

  delete(id: string): void {
    this.due.delete(id);
  }

  start(): void {
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.timerAt = null;
  }

  private arm(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.timerAt = null;
    const next = this.peek();
    if (!this.running || next === undefined) return;
    const now = this.clock.now();
    this.timerAt = next.due;
    this.cancelTimer = this.clock.setTimer(Math.min(Math.max(0, next.due - now), MAX_SLEEP_MS), () => this.fire());
  }

  private fire(): void {
    this.cancelTimer = null;
    this.timerAt = null;
    const now = this.clock.now();
    const ready: DueEntry[] = [];
    for (let next = this.peek(); next !== undefined && next.due <= now; next = this.peek()) {
      this.pop();
      this.due.delete(next.id);
      ready.push(next);
    }
    this.arm();
    if (ready.length > 0) this.onDue(ready);
  }

  /** The earliest entry that is still current, dropping stale ones on the way. */
  private peek(): DueEntry | undefined {
    while (this.heap.length > 0) {
      const top = this.heap[0]!;
      if (this.due.get(top.id) === top.due) return top;
      this.pop();
    }
    return undefined;
  }

  private push(entry: DueEntry): void {
    // Rebuild when stale entries outnumber live ones, so the heap stays proportional to what is pending.
    if (this.heap.length > 2 * this.due.size + 1_024) {
      this.heap = [...this.due].map(([id, due]) => ({ id, due })).sort((a, b) => a.due - b.due);
      return;
    }
    const heap = this.heap;
    heap.push(entry);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= heap[i]!.due) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && heap[left]!.due < heap[smallest]!.due) smallest = left;
      if (right < heap.length && heap[right]!.due < heap[smallest]!.due) smallest = right;
      if (smallest === i) break;
      [heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!];
      i = smallest;
    }
  }
}
