/**
 * Token counts for budgets (the session history, the skills catalog, recalled memories, the MCP section), from a real BPE tokenizer rather than
 * length / 4, which counted Chinese text at about a third of its tokens. cl100k_base (gpt-tokenizer) stands in
 * for every provider's own tokenizer: it counts CJK text at least as high as most, so budgets err on the safe
 * side, and it loads in half the memory of o200k_base. Counts are cached by content, so a transcript costs a
 * hash per message and only new messages are tokenized. A budget check first compares the text's UTF-8 size with
 * the budget (no token is shorter than a byte), so short sessions and small catalogs never load the tokenizer.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type * as Cl100k from "gpt-tokenizer/encoding/cl100k_base";

type Encoding = typeof Cl100k;
let encoding: Encoding | undefined;
/**
 * Loaded on first use (about 40 MB and a third of a second), so commands that count nothing never pay for it.
 * Without its merge cache: by default the library keeps the merged tokens of up to 100,000 pieces missing from the
 * vocabulary, which 200,000 varied Chinese words filled with 25 MB of heap, counted in 2.1 s against 0.75 s without
 * it. New text is what we count (counts of long texts are cached below); a repeated short text is merged again.
 */
function countBpeTokens(text: string): number {
  if (!encoding) {
    encoding = createRequire(import.meta.url)("gpt-tokenizer/cjs/encoding/cl100k_base") as Encoding;
    encoding.setMergeCacheSize(0);
  }
  // Special tokens ("<|endoftext|>") in a message are text to count, not a reason to throw.
  return encoding.countTokens(text, COUNT_AS_TEXT);
}

const COUNT_AS_TEXT = { disallowedSpecial: new Set<string>() };

const CACHE_ENTRIES = 20_000;
/** Below this length, counting is cheaper than hashing and caching. */
const CACHE_FROM_CHARS = 256;

const counts = new Map<string, number>();

export function countTokens(text: string): number {
  if (text.length < CACHE_FROM_CHARS) return countBpeTokens(text);
  const key = createHash("sha1").update(text).digest("base64");
  const cached = counts.get(key);
  if (cached !== undefined) return cached;
  const count = countBpeTokens(text);
  counts.set(key, count);
  // Oldest first: a Map iterates in insertion order.
  if (counts.size > CACHE_ENTRIES) counts.delete(counts.keys().next().value!);
  return count;
}

/**
 * Whether `text` is at most `budget` tokens. Every token stands for at least one byte of UTF-8, so a text of no
 * more bytes than the budget fits without being tokenized.
 */
export function fitsInTokens(text: string, budget: number): boolean {
  return Buffer.byteLength(text) <= budget || countTokens(text) <= budget;
}
