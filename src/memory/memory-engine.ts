/**
 * Long-term memory: what people asked the bot to keep, per person and per group chat, searchable by words and
 * (with embeddings) by meaning. Every read and write is on behalf of a Requester, who sees their own memories and,
 * in a group, that group's shared ones: never another person's.
 */
import { LRUCache } from "lru-cache";
import { countTokens } from "../core/tokens.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { MemoryConfig } from "./config.js";
import type { Embedder } from "./embeddings.js";
import { MemoryRecords, newMemoryId, type OwnerDocument } from "./memory-records.js";
import { OwnerIndex, type RankedId } from "./owner-index.js";
import { fuseRankings } from "./rank-fusion.js";
import {
  MemoryError,
  ownerFor,
  ownerKey,
  ownersVisibleTo,
  userOwner,
  type MemoryKind,
  type MemoryOwner,
  type MemoryRecord,
  type MemoryScope,
  type Requester,
} from "./types.js";
import { encodeVector } from "./vectors.js";

export interface MemoryEngineDeps {
  store: Store;
  config: MemoryConfig;
  log: Logger;
  /** null: full-text search only. */
  embedder: Embedder | null;
  now?: () => Date;
}

export interface NewMemory {
  content: string;
  kind: MemoryKind;
  scope: MemoryScope;
  source?: MemoryRecord["source"];
}

export interface MemoryHit {
  memory: MemoryRecord;
  score: number;
}

export interface OwnerStats {
  total: number;
  byKind: Partial<Record<MemoryKind, number>>;
  newest?: string;
}

export interface MemoryStats {
  yours: OwnerStats;
  /** In a group: the chat's shared memories. */
  thisChat?: OwnerStats;
  limitPerOwner: number;
  search: "full-text" | "hybrid";
}

/** What a turn's prompt gets: the most relevant memories within the budget, and how many are stored in all. */
export interface Recollection {
  memories: MemoryRecord[];
  stored: number;
}

/** Memories embedded per request when catching up on those kept without a vector. */
const BACKFILL_BATCH = 64;

/** Candidates each ranking contributes before they are fused. */
const POOL = 50;
/** Tokens one memory line adds beyond its content (id, kind, date, markup). */
const LINE_OVERHEAD_TOKENS = 12;
/** The index of every owner without stored memories; never cached, so never changed by change(). */
const NO_MEMORIES = new OwnerIndex(undefined, []);

export class MemoryEngine {
  private readonly records: MemoryRecords;
  private readonly cache: LRUCache<string, OwnerIndex>;
  private readonly now: () => Date;
  /** Owners whose missing embeddings are being filled in, and the work doing it. */
  private readonly backfills = new Map<string, Promise<void>>();

  constructor(private readonly deps: MemoryEngineDeps) {
    this.records = new MemoryRecords(deps.store);
    this.cache = new LRUCache({ maxSize: deps.config.cacheMaxMemories, sizeCalculation: (index) => index.size + 1 });
    this.now = deps.now ?? (() => new Date());
  }

  get hybrid(): boolean {
    return this.deps.embedder !== null;
  }

  /** Keeps a memory; the same content kept twice for one owner is one memory (the existing one is returned). */
  async add(requester: Requester, input: NewMemory): Promise<{ memory: MemoryRecord; duplicate: boolean }> {
    const content = input.content.trim().replace(/\s+/g, " ");
    const { maxChars, maxPerOwner } = this.deps.config;
    if (content === "") throw new MemoryError("A memory needs some content.", "invalid");
    if (content.length > maxChars) throw new MemoryError(`A memory is at most ${maxChars} characters; this one has ${content.length}. Keep the gist.`, "invalid");
    const owner = ownerFor(requester, input.scope);
    const vector = await this.embedOne(content);
    const outcome = await this.change(owner, (doc) => {
      const same = doc.items.find((item) => item.content.toLowerCase() === content.toLowerCase());
      if (same) return { memory: same, duplicate: true };
      if (doc.items.length >= maxPerOwner) {
        throw new MemoryError(`There are already ${maxPerOwner} memories here, the most kept; forget some first.`, "limit");
      }
      const memory: MemoryRecord = {
        id: newMemoryId(doc),
        kind: input.kind,
        content,
        scope: owner.kind === "user" ? "user" : "chat",
        author: { channel: requester.channel, userId: requester.userId },
        createdAt: this.now().toISOString(),
        source: input.source ?? "tool",
        ...(vector ? { vector: encodeVector(vector) } : {}),
      };
      doc.items.push(memory);
      return { memory, duplicate: false };
    }, (index, result) => {
      if (!result.duplicate) index.add(result.memory);
    });
    if (owner.kind === "chat" && !outcome.duplicate) await this.noteGroupAuthored(requester, owner);
    return outcome;
  }

  /** The requester's memories (and their group's) that best match `query`, best first. */
  async search(requester: Requester, query: string, limit: number): Promise<MemoryHit[]> {
    const owners = ownersVisibleTo(requester);
    const indexes = await Promise.all(owners.map((owner) => this.index(owner)));
    owners.forEach((owner, i) => this.backfill(owner, indexes[i]!));
    const rankings: RankedId[][] = indexes.map((index, i) => index.searchText(query, POOL).map((hit) => tagged(i, hit)));
    const queryVector = await this.embedOne(query);
    if (queryVector) {
      const vector = new Float32Array(queryVector);
      const minSimilarity = this.deps.config.embeddings?.minSimilarity ?? 0;
      const byMeaning = indexes.flatMap((index, i) => index.searchVector(vector, minSimilarity, POOL).map((hit) => tagged(i, hit)));
      rankings.push(byMeaning.sort((a, b) => b.score - a.score));
    }
    return fuseRankings(rankings, limit).flatMap(({ id, score }) => {
      const [which, memoryId] = untag(id);
      const memory = indexes[which]?.get(memoryId);
      return memory ? [{ memory, score }] : [];
    });
  }

  /** The few memories most relevant to `text` that fit the prompt budget. */
  async recall(requester: Requester, text: string): Promise<Recollection> {
    const { promptMaxItems, promptTokenBudget } = this.deps.config;
    const indexes = await Promise.all(ownersVisibleTo(requester).map((owner) => this.index(owner)));
    const stored = indexes.reduce((sum, index) => sum + index.size, 0);
    if (stored === 0 || promptMaxItems === 0 || text.trim() === "") return { memories: [], stored };
    const memories: MemoryRecord[] = [];
    let tokens = 0;
    for (const { memory } of await this.search(requester, text, promptMaxItems)) {
      const cost = countTokens(memory.content) + LINE_OVERHEAD_TOKENS;
      if (tokens + cost > promptTokenBudget) continue;
      tokens += cost;
      memories.push(memory);
    }
    return { memories, stored };
  }

  /** Everything one owner keeps, newest first. */
  async list(owner: MemoryOwner): Promise<MemoryRecord[]> {
    return (await this.index(owner)).all().sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  async stats(requester: Requester): Promise<MemoryStats> {
    const [yours, thisChat] = await Promise.all(ownersVisibleTo(requester).map(async (owner) => ownerStats(await this.list(owner))));
    return {
      yours: yours ?? { total: 0, byKind: {} },
      ...(thisChat ? { thisChat } : {}),
      limitPerOwner: this.deps.config.maxPerOwner,
      search: this.hybrid ? "hybrid" : "full-text",
    };
  }

  /**
   * Deletes one memory: the requester's own, or a shared one of their group that they added (or any of the
   * group's when `moderator`).
   */
  async forget(requester: Requester, id: string, opts: { moderator?: boolean } = {}): Promise<MemoryRecord> {
    const wanted = id.trim().toLowerCase();
    for (const owner of ownersVisibleTo(requester)) {
      const found = (await this.index(owner)).get(wanted);
      if (!found) continue;
      const mine = found.author.channel === requester.channel && found.author.userId === requester.userId;
      if (owner.kind !== "user" && !mine && !opts.moderator) {
        throw new MemoryError(`Memory ${wanted} is ${owner.kind === "chat" ? "this group's" : "shared by everyone here"}, added by someone else: only they can forget it.`, "denied");
      }
      const removed = await this.change(owner, (doc) => removeWhere(doc, (item) => item.id === wanted), (index) => index.remove(wanted));
      if (removed.length === 0) break;
      return found;
    }
    throw new MemoryError(`There is no memory ${wanted} of yours here. /memory lists them with their ids.`, "not_found");
  }

  /** Deletes all of a person's memories, and the group memories they added anywhere. Returns how many. */
  async forgetAll(user: { channel: Requester["channel"]; userId: string }): Promise<number> {
    const owner = userOwner(user);
    const { doc } = await this.records.load(owner);
    let count = 0;
    for (const group of doc.groupsAuthored ?? []) {
      const byThem = (item: MemoryRecord): boolean => item.author.channel === user.channel && item.author.userId === user.userId;
      const removed = await this.change(group, (groupDoc) => removeWhere(groupDoc, byThem), (index, gone) => gone.forEach((m) => index.remove(m.id)));
      count += removed.length;
    }
    const removed = await this.change(owner, (own) => {
      const all = own.items;
      own.items = [];
      own.groupsAuthored = [];
      return all;
    }, (index, gone) => gone.forEach((m) => index.remove(m.id)));
    return count + removed.length;
  }

  /** Resolves once the embeddings being filled in (if any) are stored. */
  async settled(): Promise<void> {
    await Promise.all(this.backfills.values());
  }

  /**
   * Embeds, in the background, a batch of the owner's memories that have no vector yet (kept before embeddings
   * were configured, or while the endpoint was down), so search by meaning catches up with them.
   */
  private backfill(owner: MemoryOwner, index: OwnerIndex): void {
    const { embedder, log } = this.deps;
    const key = ownerKey(owner);
    const missing = embedder ? index.withoutVector(BACKFILL_BATCH) : [];
    if (!embedder || missing.length === 0 || this.backfills.has(key)) return;
    const work = (async () => {
      const vectors = new Map((await embedder.embed(missing.map((m) => m.content))).map((v, i) => [missing[i]!.id, encodeVector(v)]));
      await this.change(
        owner,
        (doc) =>
          doc.items.flatMap((item) => {
            const vector = vectors.get(item.id);
            if (!vector || item.vector) return [];
            item.vector = vector;
            return [item];
          }),
        (cached, updated) => updated.forEach((record) => cached.add(record)),
      );
    })()
      .catch((err: unknown) => log.warn({ err, owner: key }, "filling in missing embeddings failed; trying again on a later search"))
      .finally(() => this.backfills.delete(key));
    this.backfills.set(key, work);
  }

  /** Runs a change on the stored document and keeps this process's index of it current. */
  private async change<T>(owner: MemoryOwner, edit: (doc: OwnerDocument) => T, follow: (index: OwnerIndex, result: T) => void): Promise<T> {
    const key = ownerKey(owner);
    const { result, before, after } = await this.records.update(owner, edit);
    const cached = this.cache.get(key);
    if (cached && cached.rev === before) {
      follow(cached, result);
      cached.rev = after;
      this.cache.set(key, cached); // its size changed
    } else {
      this.cache.delete(key);
    }
    return result;
  }

  /** The owner's index, reloaded only when the stored revision moved (another replica, the CLI). */
  private async index(owner: MemoryOwner): Promise<OwnerIndex> {
    const key = ownerKey(owner);
    const rev = await this.records.revision(owner);
    const cached = this.cache.get(key);
    if (cached && cached.rev === rev) return cached;
    // Most owners never keep a memory: one index (a few KiB of MiniSearch) per user who ever wrote would fill the
    // cache with empty ones, so those share one that nothing changes (change() only updates cached indexes).
    if (rev === undefined) {
      this.cache.delete(key);
      return NO_MEMORIES;
    }
    const loaded = await this.records.load(owner);
    const index = new OwnerIndex(loaded.rev, loaded.doc.items);
    this.cache.set(key, index);
    return index;
  }

  private async noteGroupAuthored(requester: Requester, group: MemoryOwner): Promise<void> {
    const key = ownerKey(group);
    await this.change(userOwner(requester), (doc) => {
      const groups = doc.groupsAuthored ?? [];
      if (!groups.some((g) => ownerKey(g) === key)) doc.groupsAuthored = [...groups, group];
    }, () => {});
  }

  /** The text's embedding, or undefined without embeddings or when the endpoint fails (search goes on by words). */
  private async embedOne(text: string): Promise<number[] | undefined> {
    const { embedder } = this.deps;
    if (!embedder) return undefined;
    try {
      return (await embedder.embed([text]))[0];
    } catch (err) {
      this.deps.log.warn({ err }, "embeddings endpoint failed; memory search uses words only this time");
      return undefined;
    }
  }
}

function ownerStats(items: readonly MemoryRecord[]): OwnerStats {
  const byKind: OwnerStats["byKind"] = {};
  for (const item of items) byKind[item.kind] = (byKind[item.kind] ?? 0) + 1;
  return { total: items.length, byKind, ...(items[0] ? { newest: items[0].createdAt } : {}) };
}

function removeWhere(doc: OwnerDocument, match: (item: MemoryRecord) => boolean): MemoryRecord[] {
  const removed = doc.items.filter(match);
  doc.items = doc.items.filter((item) => !match(item));
  return removed;
}

/** Ids are unique per owner only, so fused rankings carry which owner's index a hit came from. */
const tagged = (which: number, hit: RankedId): RankedId => ({ id: `${which}/${hit.id}`, score: hit.score });
const untag = (id: string): [number, string] => {
  const slash = id.indexOf("/");
  return [Number(id.slice(0, slash)), id.slice(slash + 1)];
};
