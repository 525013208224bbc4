/**
 * Runs the turns of each session one at a time, in arrival order, while different sessions run in parallel
 * up to a global cap. Each task gets an AbortSignal so /stop can cancel the running turn and drop the queued ones.
 * Kept over p-queue: its abort signal rejects a running task at once and frees its slot, but a session's next turn
 * must wait until the cancelled one has really ended.
 */
import { queueDepth } from "../infra/metrics.js";

export class TurnCancelled extends Error {
  constructor() {
    super("turn cancelled");
    this.name = "AbortError";
  }
}

interface SessionLane {
  tail: Promise<void>;
  controllers: Set<AbortController>;
  running: boolean;
  size: number;
}

export class SessionQueue {
  private readonly lanes = new Map<string, SessionLane>();
  private readonly waiting: Array<() => void> = [];
  private active = 0;

  constructor(private readonly maxConcurrent: number) {}

  /** Queues `task` behind the session's earlier tasks; rejects with TurnCancelled when cancelled before it ran. */
  run<T>(key: string, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const lane = this.lanes.get(key) ?? { tail: Promise.resolve(), controllers: new Set(), running: false, size: 0 };
    this.lanes.set(key, lane);
    const controller = new AbortController();
    lane.controllers.add(controller);
    lane.size += 1;
    queueDepth.inc();

    const result = lane.tail.then(async () => {
      if (controller.signal.aborted) throw new TurnCancelled();
      await this.acquireSlot();
      if (controller.signal.aborted) {
        this.releaseSlot();
        throw new TurnCancelled();
      }
      lane.running = true;
      try {
        return await task(controller.signal);
      } finally {
        lane.running = false;
        this.releaseSlot();
      }
    });
    lane.tail = result.then(
      () => this.settle(key, lane, controller),
      () => this.settle(key, lane, controller),
    );
    return result;
  }

  /** Aborts the session's running task and every queued one. */
  cancel(key: string): { running: boolean; queued: number } {
    const lane = this.lanes.get(key);
    if (!lane) return { running: false, queued: 0 };
    const running = lane.running;
    for (const controller of lane.controllers) controller.abort(new TurnCancelled());
    return { running, queued: lane.size - (running ? 1 : 0) };
  }

  cancelAll(): void {
    for (const key of this.lanes.keys()) this.cancel(key);
  }

  state(key: string): { running: boolean; queued: number } {
    const lane = this.lanes.get(key);
    if (!lane) return { running: false, queued: 0 };
    return { running: lane.running, queued: lane.size - (lane.running ? 1 : 0) };
  }

  get activeTurns(): number {
    return this.active;
  }

  /** Resolves once no task is queued or running. */
  async idle(): Promise<void> {
    while (this.lanes.size > 0) await Promise.all([...this.lanes.values()].map((lane) => lane.tail));
  }

  private settle(key: string, lane: SessionLane, controller: AbortController): void {
    lane.controllers.delete(controller);
    lane.size -= 1;
    queueDepth.dec();
    if (lane.size === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
  }

  private async acquireSlot(): Promise<void> {
    if (this.active < this.maxConcurrent) {
      this.active += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else this.active -= 1;
  }
}
