/** Walking markdown-it's flat token list, for the channels that render Markdown into their platform's markup. */
import type { Token } from "markdown-it";

/** The index of the token closing the block opened at `open` (the last token when it is never closed). */
export function closingIndex(tokens: Token[], open: number): number {
  let level = 0;
  for (let i = open; i < tokens.length; i++) {
    level += tokens[i]!.nesting;
    if (level === 0) return i;
  }
  return tokens.length - 1;
}
