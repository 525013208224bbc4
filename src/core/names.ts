/** "Did you mean" for names the model or a user typed: tools, skills, settings. */

/** Names of tools close to `name` (by spelling or containment), closest first; for "did you mean" hints. */
export function suggestToolNames(name: string, candidates: readonly string[], limit = 3): string[] {
  const wanted = normalizeToolName(name);
  const close = rankByDistance(wanted, candidates).map((match) => match.name);
  const containing = candidates.filter(
    (candidate) => wanted.length >= 3 && normalizeToolName(candidate).includes(wanted),
  );
  return [...new Set([...close, ...containing])].slice(0, limit);
}

/** `Schedule-Task`, ` schedule task ` and `schedule_task` all become `schedule_task`. */
export function normalizeToolName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

interface DistanceMatch {
  name: string;
  distance: number;
}

/** Candidates within a length-dependent edit distance of the normalized `wanted`, closest first. */
export function rankByDistance(wanted: string, candidates: readonly string[]): DistanceMatch[] {
  const allowed = wanted.length <= 4 ? 1 : wanted.length <= 10 ? 2 : 3;
  return candidates
    .map((name) => ({ name, distance: editDistance(wanted, normalizeToolName(name)) }))
    .filter((match) => match.distance <= allowed)
    .sort((a, b) => a.distance - b.distance);
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions (`taks` is one edit from `task`). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}
