/**
 * The search index of one owner's memories: MiniSearch (BM25 with prefix and fuzzy matching) over the contents,
 * and the embeddings beside it when there are any. Built from the stored records, then kept in step with this
 * process's own writes; `rev` says which stored version it reflects.
 */
import MiniSearch from "minisearch";
import { tokenize } from "./tokenize.js";
import type { MemoryRecord } from "./types.js";
import { decodeVector } from "./vectors.js";

export interface RankedId {
  id: string;
  score: number;
}

const HAN = /\p{Script=Han}/u;

export class OwnerIndex {
  private readonly text: MiniSearch<{ id: string; content: string }>;
  private readonly records = new Map<string, MemoryRecord>();
  private readonly vectors = new Map<string, Float32Array>();

  constructor(
    public rev: string | undefined,
    items: readonly MemoryRecord[],
  ) {
    this.text = new MiniSearch({
      fields: ["content"],
      tokenize,
      // tokenize() already normalized the terms.
      processTerm: (term) => term,
      searchOptions: {
        combineWith: "OR",
        // A one-letter Latin prefix would match half the index; a Chinese character is a word of its own.
        prefix: (term) => term.length >= 3 || HAN.test(term),
        fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      },
    });
    for (const item of items) this.add(item);
  }

  get size(): number {
    return this.records.size;
  }

  /** Up to `limit` memories kept without an embedding (before embeddings were set up, or the endpoint failed). */
  withoutVector(limit: number): MemoryRecord[] {
    const found: MemoryRecord[] = [];
    if (this.vectors.size === this.records.size) return found;
    for (const record of this.records.values()) {
      if (found.length >= limit) break;
      if (!this.vectors.has(record.id)) found.push(record);
    }
    return found;
  }

  all(): MemoryRecord[] {
    return [...this.records.values()];
  }

  get(id: string): MemoryRecord | undefined {
    return this.records.get(id);
  }

  /** Adds a memory, or replaces the one with its id. */
  add(record: MemoryRecord): void {
    this.remove(record.id);
    this.records.set(record.id, record);
    this.text.add({ id: record.id, content: record.content });
    if (record.vector) this.vectors.set(record.id, decodeVector(record.vector));
  }

  remove(id: string): void {
    if (!this.records.delete(id)) return;
    this.text.discard(id);
    this.vectors.delete(id);
  }

  /** Full-text matches, best first. */
  searchText(query: string, limit: number): RankedId[] {
    return this.text
      .search(query)
      .slice(0, limit)
      .map((hit) => ({ id: String(hit.id), score: hit.score }));
  }

  /** Memories whose embedding is at least `minSimilarity` (cosine) from `query`, best first. */
  searchVector(query: Float32Array, minSimilarity: number, limit: number): RankedId[] {
    const hits: RankedId[] = [];
    for (const [id, vector] of this.vectors) {
      const score = cosine(query, vector);
      if (score >= minSimilarity) hits.push({ id, score });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }
}

function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
