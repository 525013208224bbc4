/**
 * Group commit: items added while a write is in progress go together into the next one, so concurrent writers
 * share a write (and its commit) instead of queueing one each. Each caller's promise settles with its batch.
 */
interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class Batcher<T> {
  private waiting: Array<Waiting<T>> = [];
  private writing: Promise<void> | null = null;

  /** `write` stores a batch of at most `maxBatch` items. */
  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxBatch: number,
  ) {}

  /** Resolves once `item` is written; rejects with its batch's error. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.start();
    });
  }

  /** One write at a time; items that arrive as one ends (after its last look) start the next. */
  private start(): void {
    if (this.writing || this.waiting.length === 0) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = null;
      this.start();
    });
  }

  private async writeAll(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      try {
        await this.write(batch.map((w) => w.item));
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }
}
