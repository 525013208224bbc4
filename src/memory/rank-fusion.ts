/**
 * Reciprocal rank fusion: combines rankings whose scores are not comparable (BM25 of two indexes, cosine
 * similarity) by rank alone. A document ranked r-th (from 1) in a list earns 1 / (K + r) from it.
 */
import type { RankedId } from "./owner-index.js";

/** The usual constant: keeps one list's top hit from outweighing agreement between lists. */
const K = 60;

export function fuseRankings(rankings: readonly (readonly RankedId[])[], limit: number): RankedId[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach(({ id }, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (K + rank + 1)));
  }
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}
