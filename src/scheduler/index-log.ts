/**
 * The index of live tasks as an append-only log in the store: each change of a task's next run is one item
 * appended (a batch of concurrent changes is one write), and a `head` key says which log is current and how long
 * it is. Every process keeps the log folded in memory and reads only the items past what it has folded, so
 * creating a task costs one appended item, not a read-modify-write of shared keys. When the log holds more
 * superseded items than live ones it is rewritten, folded, under a new generation.
 */
import type { ItemLists, Namespace, Store } from "../infra/store/types.js";
import { Batcher } from "./batcher.js";
import { readOldIndex } from "./index-migration.js";
import type { LiveEntry } from "./types.js";

/** A task's new entry, or its removal (finished, cancelled). */
type LogItem = [id: string, due: number | null, cron: string | null, creator: string] | [id: string];

interface Head {
  generation: number;
  length: number;
}

const HEAD_KEY = "index-head";
const LOCK_KEY = "tasks-index";
const LOCK = { leaseMs: 30_000, waitMs: 60_000 };
/** Items per write: a burst is written in a few large batches. */
const BATCH = 2_000;
/** Rewrite once superseded items exceed the live ones by this much (the default). */
const COMPACT_SLACK = 10_000;

const logKey = (generation: number): string => `index-log:${generation}`;

export class IndexLog {
  private readonly ns: Namespace<unknown>;
  private readonly lists: ItemLists<LogItem>;
  private readonly live = new Map<string, LiveEntry>();
  private readonly byCreator = new Map<string, { key: string; ids: Set<string> }>();
  /** Which log, and how much of it, `live` folds. */
  private folded: Head = { generation: 0, length: 0 };
  private readonly appends: Batcher<LogItem>;
  private refreshInFlight: Promise<void> = Promise.resolve();
  private refreshQueued: Promise<void> | null = null;
  /** When the last completed refresh started (ms, this process's clock). */
  private refreshedAt = -Infinity;

  constructor(
    private readonly store: Store,
    private readonly compactSlack = COMPACT_SLACK,
  ) {
    this.ns = store.namespace<unknown>("tasks");
    this.lists = store.lists<LogItem>("tasks");
    this.appends = new Batcher((items) => store.coordinator.withLock(LOCK_KEY, () => this.write(items), LOCK), BATCH);
  }

  /** Changes whenever the log grows or is rewritten; as of the last refresh. */
  get revision(): string {
    return `${this.folded.generation}:${this.folded.length}`;
  }

  /** Every live task's entry, as of the last refresh. */
  entries(): ReadonlyMap<string, LiveEntry> {
    return this.live;
  }

  /** The live task ids of `creator` ("channel:userId"), as of the last refresh. */
  idsOf(creator: string): ReadonlySet<string> {
    return this.byCreator.get(creator)?.ids ?? new Set();
  }

  has(id: string): boolean {
    return this.live.has(id);
  }

  /** Records the task's new entry (null: removed); resolves once it is stored. */
  append(id: string, entry: LiveEntry | null): Promise<void> {
    return this.appends.add(entry ? [id, entry.due, entry.cron, entry.creator] : [id]);
  }

  /**
   * Folds what others appended since the last refresh. Callers that come while one waits to start share it; it
   * starts after the one in flight, so it sees every write that finished before it was called.
   */
  refresh(): Promise<void> {
    const startedAt = Date.now();
    this.refreshQueued ??= this.refreshInFlight
      .catch(() => undefined)
      .then(() => {
        this.refreshQueued = null;
        this.refreshInFlight = this.readNew().then(() => {
          this.refreshedAt = Math.max(this.refreshedAt, startedAt);
        });
        return this.refreshInFlight;
      });
    return this.refreshQueued;
  }

  /** Refreshes unless a refresh started within the last `maxAgeMs`: for counts that may lag others' writes a little. */
  async refreshIfOlder(maxAgeMs: number): Promise<void> {
    if (Date.now() - this.refreshedAt >= maxAgeMs) await this.refresh();
  }

  private async readNew(): Promise<void> {
    await this.catchUp(await this.head());
  }

  /** Folds the items of `head` not folded yet. */
  private async catchUp(head: Head): Promise<void> {
    if (head.generation === this.folded.generation && head.length <= this.folded.length) return;
    const from = head.generation === this.folded.generation ? this.folded.length : 0;
    this.fold(head.generation, from, await this.lists.read(logKey(head.generation), head.length, from));
  }

  /** Under the lock: appends `items` at the end of the current log, and rewrites the log when it is mostly stale. */
  private async write(items: LogItem[]): Promise<void> {
    const head = await this.head();
    await this.lists.writeFrom(logKey(head.generation), head.length, items);
    const grown = { generation: head.generation, length: head.length + items.length };
    await this.ns.set(HEAD_KEY, grown);
    await this.catchUp(head);
    this.fold(grown.generation, head.length, items);
    if (grown.length > 2 * this.live.size + this.compactSlack) await this.compact(grown);
  }

  /** Under the lock, with `live` folding all of `head`: writes the live entries as the next generation. */
  private async compact(head: Head): Promise<void> {
    const next = { generation: head.generation + 1, length: this.live.size };
    await this.lists.writeFrom(logKey(next.generation), 0, [...this.live].map(([id, e]): LogItem => [id, e.due, e.cron, e.creator]));
    await this.ns.set(HEAD_KEY, next);
    this.folded = next;
    await this.lists.delete(logKey(head.generation));
  }

  /** The current head; the first time, under the lock, the index of the old layout (shards) becomes generation 1. */
  private async head(): Promise<Head> {
    const head = (await this.ns.get(HEAD_KEY)) as Head | undefined;
    if (head) return head;
    return this.store.coordinator.withLock(`${LOCK_KEY}-migration`, async () => {
      const again = (await this.ns.get(HEAD_KEY)) as Head | undefined;
      if (again) return again;
      const old = await readOldIndex(this.ns);
      const items = old.entries.map(([id, e]): LogItem => [id, e.due, e.cron, e.creator]);
      await this.lists.writeFrom(logKey(1), 0, items);
      const first = { generation: 1, length: items.length };
      await this.ns.set(HEAD_KEY, first);
      await old.remove();
      return first;
    }, LOCK);
  }

  /**
   * Applies the items at positions `from`... of generation `generation`. Positions below a head's length never
   * change, so what was folded already is skipped; a newer generation starts over, an older one is ignored.
   */
  private fold(generation: number, from: number, items: readonly LogItem[]): void {
    if (generation < this.folded.generation) return;
    if (generation > this.folded.generation) {
      if (from !== 0) return;
      this.live.clear();
      this.byCreator.clear();
      this.folded = { generation, length: 0 };
    }
    if (from > this.folded.length) return;
    for (let i = this.folded.length - from; i < items.length; i++) this.apply(items[i]!);
    this.folded = { generation, length: Math.max(this.folded.length, from + items.length) };
  }

  private apply(item: LogItem): void {
    const [id] = item;
    const before = this.live.get(id);
    if (before) {
      const owner = this.byCreator.get(before.creator);
      owner?.ids.delete(id);
      if (owner?.ids.size === 0) this.byCreator.delete(before.creator);
    }
    if (item.length === 1) {
      this.live.delete(id);
      return;
    }
    let owner = this.byCreator.get(item[3]);
    if (!owner) this.byCreator.set(item[3], (owner = { key: item[3], ids: new Set() }));
    owner.ids.add(id);
    this.live.set(id, { due: item[1], cron: item[2], creator: owner.key });
  }
}
