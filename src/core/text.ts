/**
 * Splitting a long Markdown reply into messages a platform accepts. Shared by every adapter: each passes its
 * own limit, how it measures length (Telegram counts UTF-16 code units, Discord code points) and, for Discord,
 * a cap on lines. Cuts fall between lines; a line longer than a message is broken at a space when it has one,
 * never inside a surrogate pair. A chunk never ends inside a code block: the fence is closed at the cut and
 * reopened, with its language, at the start of the next chunk.
 */

export interface ChunkOptions {
  /** Longest chunk, as measured by `measure`. At least 40. */
  maxLength: number;
  /** Most lines in one chunk (Discord collapses long messages beyond about 17). At least 3. */
  maxLines?: number;
  /**
   * Length of a string as the platform counts it; default: UTF-16 code units (String.length). A text should not
   * measure shorter than its own prefix (cuts are found by bisection); every chunk is measured within the limit.
   */
  measure?: (text: string) => number;
}

const FENCE = /^\s*(`{3,}|~{3,})/;

/** Characters as a person counts them (code points). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

export function chunkText(text: string, opts: ChunkOptions): string[] {
  const measure = opts.measure ?? ((s: string) => s.length);
  const maxLines = opts.maxLines ?? Number.POSITIVE_INFINITY;
  if (opts.maxLength < 40 || maxLines < 3) throw new Error("chunkText needs maxLength >= 40 and maxLines >= 3");

  const rawLines = text.replace(/\r\n/g, "\n").split("\n");
  // Room for a reopened fence line and a closing fence around any line.
  const longestFence = Math.max(0, ...rawLines.filter((l) => FENCE.test(l)).map((l) => measure(l.trim())));
  const lineCap = Math.max(10, opts.maxLength - 2 * (Math.min(longestFence, 20) + 1));
  const lines = breakLongLines(rawLines, lineCap, measure);
  const fenceAfter = openFences(lines);

  const chunks: string[] = [];
  let current: string[] = [];
  let openFence: string | null = null; // the opening line of a code block still open at the end of `current`

  const closingFor = (fence: string | null) => (fence ? `\n${FENCE.exec(fence)![1]}` : "");
  const flush = () => {
    const chunk = current.join("\n") + closingFor(openFence);
    if (!isEmptyChunk(chunk)) chunks.push(chunk);
    current = openFence ? [openFence] : [];
  };
  /** Whether `current` with lines[next..end] added is still one chunk. */
  const fitsThrough = (next: number, end: number) => {
    const candidate = current.concat(lines.slice(next, end + 1));
    const fence = fenceAfter[end]!;
    return measure(candidate.join("\n") + closingFor(fence)) <= opts.maxLength && candidate.length + (fence ? 1 : 0) <= maxLines;
  };

  // Lines join the current chunk while it fits. Where it fits is found by doubling and halving rather than line by
  // line: a rendered measure (Telegram's) costs a Markdown render per probe.
  let knownToFit = -1;
  for (let i = 0; i < lines.length; i++) {
    if (i > knownToFit) knownToFit = furthestFit(i, lines.length, fitsThrough);
    if (i > knownToFit && current.length > 0) {
      flush();
      knownToFit = -1;
    }
    current.push(lines[i]!);
    openFence = fenceAfter[i]!;
  }
  flush();
  return chunks;
}

/**
 * The last line through which `fits(next, end)` holds, probing ahead by doubling and then halving; next - 1 when
 * not even line `next` fits. Exact because a longer candidate never measures shorter.
 */
function furthestFit(next: number, count: number, fits: (next: number, end: number) => boolean): number {
  if (!fits(next, next)) return next - 1;
  let good = next;
  let bad = count;
  for (let step = 1; good + step < count; step *= 2) {
    if (!fits(next, good + step)) {
      bad = good + step;
      break;
    }
    good += step;
  }
  while (bad - good > 1) {
    const mid = (good + bad) >> 1;
    if (fits(next, mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/** For each line, the opening line of the code block still open after it (null outside one). */
function openFences(lines: readonly string[]): Array<string | null> {
  let open: string | null = null;
  return lines.map((line) => (open = FENCE.test(line) ? (open ? null : line.trim()) : open));
}

/** Blank, or a code block with nothing in it (left when a block's last line ended the previous chunk). */
function isEmptyChunk(chunk: string): boolean {
  const lines = chunk.split("\n").filter((l) => l.trim() !== "");
  return lines.length === 0 || (lines.length === 2 && lines.every((l) => FENCE.test(l)));
}

function breakLongLines(lines: string[], cap: number, measure: (s: string) => number): string[] {
  const out: string[] = [];
  for (let line of lines) {
    while (measure(line) > cap) {
      let cut = longestPrefix(line, cap, measure);
      const space = line.lastIndexOf(" ", cut - 1);
      if (space > cut / 2) cut = space + 1;
      out.push(line.slice(0, cut));
      line = line.slice(cut);
    }
    out.push(line);
  }
  return out;
}

/** Length in UTF-16 units of the longest prefix measuring at most `max` that ends between two code points. */
function longestPrefix(line: string, max: number, measure: (s: string) => number): number {
  let end = 0;
  let measured = 0;
  for (const char of line) {
    measured += measure(char);
    if (measured > max) break;
    end += char.length;
  }
  return Math.max(end, line.codePointAt(0)! > 0xffff ? 2 : 1);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
