/**
 * Markdown as models write it -> the HTML subset Telegram accepts (b, i, s, code, pre, a, blockquote, tg-spoiler).
 * Headings become bold lines, list items keep their numbers or get a bullet, tables stay as text. Everything that
 * is not markup is escaped, so the output always parses; an unmatched delimiter stays a literal character.
 * The visible text is never longer than the Markdown it came from, which the chunker relies on.
 */
import { chunkText } from "../../core/text.js";

const FENCE = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^(\s*)[-*+]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

export function markdownToHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      // Any fence line closes the block, as the shared chunker reads it; an unclosed block runs to the end.
      const close = lines.findIndex((l, j) => j > i && FENCE.test(l));
      const end = close === -1 ? lines.length : close;
      out.push(codeBlock(lines.slice(i + 1, end).join("\n"), fence[2] ?? ""));
      i = end;
    } else if (QUOTE.test(line)) {
      const quoted: string[] = [];
      for (; i < lines.length && QUOTE.test(lines[i]!); i++) quoted.push(QUOTE.exec(lines[i]!)![1]!);
      i--;
      out.push(`<blockquote>${quoted.map(inline).join("\n")}</blockquote>`);
    } else {
      out.push(blockLine(line));
    }
  }
  return out.join("\n");
}

function blockLine(line: string): string {
  const heading = HEADING.exec(line);
  if (heading) return `<b>${inline(heading[1]!)}</b>`;
  if (RULE.test(line)) return "———";
  const bullet = BULLET.exec(line);
  if (bullet) return `${bullet[1]}• ${inline(bullet[2]!)}`;
  return inline(line);
}

function codeBlock(code: string, language: string): string {
  if (code === "") return "";
  const body = escapeHtml(code);
  return language ? `<pre><code class="language-${language}">${body}</code></pre>` : `<pre>${body}</pre>`;
}

/** Paired delimiters, longest first so `**` is not read as two `*`. */
const PAIRS: Array<{ open: string; tag: string; wordBound?: boolean }> = [
  { open: "**", tag: "b" },
  { open: "__", tag: "b", wordBound: true },
  { open: "~~", tag: "s" },
  { open: "||", tag: "tg-spoiler" },
  { open: "*", tag: "i" },
  { open: "_", tag: "i", wordBound: true },
];
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!|~>]/;
/** Sticky: matched where the scan stands. */
const LINK = /\[([^\]\n]+)\]\(\s*<?((?:https?|tg|mailto):[^\s)>]+)>?\s*\)/y;

/** Characters that may start markup; the text between them is copied in one piece. */
const SPECIAL = /[\\`[*_~|]/g;

function inline(text: string): string {
  let out = "";
  let copied = 0;
  for (let i = 0; ; ) {
    SPECIAL.lastIndex = i;
    const found = SPECIAL.exec(text);
    if (!found) break;
    i = found.index;
    const char = text[i]!;
    if (char === "\\" && ESCAPABLE.test(text[i + 1] ?? "")) {
      out += escapeHtml(text.slice(copied, i));
      copied = i + 1;
      i += 2;
      continue;
    }
    const span = char === "`" ? codeSpan(text, i) : char === "[" ? link(text, i) : emphasis(text, i);
    if (span) {
      out += escapeHtml(text.slice(copied, i)) + span.html;
      i += span.length;
      copied = i;
    } else {
      i += 1;
    }
  }
  return out + escapeHtml(text.slice(copied));
}

interface Span {
  html: string;
  /** Characters of Markdown it consumed. */
  length: number;
}

function codeSpan(text: string, at: number): Span | undefined {
  let end = at;
  while (text[end] === "`") end++;
  const ticks = text.slice(at, end);
  const close = text.indexOf(ticks, end);
  if (close <= end) return undefined;
  return { html: `<code>${escapeHtml(text.slice(end, close))}</code>`, length: close + ticks.length - at };
}

function link(text: string, at: number): Span | undefined {
  LINK.lastIndex = at;
  const match = LINK.exec(text);
  if (!match) return undefined;
  return { html: `<a href="${escapeHtml(match[2]!)}">${inline(match[1]!)}</a>`, length: match[0].length };
}

function emphasis(text: string, at: number): Span | undefined {
  for (const pair of PAIRS) {
    const { open } = pair;
    if (!text.startsWith(open, at)) continue;
    const start = at + open.length;
    if (/\s/.test(text[start] ?? " ") || (pair.wordBound && isWordChar(text[at - 1]))) continue;
    for (let close = text.indexOf(open, start + 1); close !== -1; close = text.indexOf(open, close + 1)) {
      const boundaryOk = !pair.wordBound || !isWordChar(text[close + open.length]);
      // `*` must not end on the first half of a `**`.
      const notDoubled = open.length > 1 || text[close + 1] !== open;
      if (!/\s/.test(text[close - 1]!) && boundaryOk && notDoubled) {
        return { html: `<${pair.tag}>${inline(text.slice(start, close))}</${pair.tag}>`, length: close + open.length - at };
      }
    }
  }
  return undefined;
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}_]/u.test(char);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ESCAPES[char]!);
}

/** The text a reader sees, which is what Telegram measures and what is sent when the HTML is refused. */
export function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

export interface TelegramChunk {
  html: string;
  /** The same text without markup: the fallback when Telegram refuses the HTML. */
  plain: string;
}

/**
 * Splits Markdown into messages of at most `maxLength` UTF-16 units of visible text, as Telegram counts them, and
 * renders each one. The split happens before rendering so no tag is cut; code blocks are closed and reopened.
 */
export function telegramChunks(markdown: string, maxLength: number): TelegramChunk[] {
  return chunkText(markdown, { maxLength, measure: visibleLength(maxLength) })
    .map((chunk) => {
      const html = markdownToHtml(chunk);
      return { html, plain: visibleText(html) };
    })
    .filter((chunk) => chunk.plain.trim() !== "");
}

/**
 * The visible length, rendering only when it matters: Markdown never renders longer than itself, so a text within
 * the limit fits as it is. A single line is measured by its source, since it may sit inside a code block whose
 * fence the chunker measures elsewhere; whole chunks carry their fences and are measured exactly.
 */
function visibleLength(maxLength: number): (markdown: string) => number {
  return (markdown) =>
    markdown.length <= maxLength || !markdown.includes("\n") ? markdown.length : visibleText(markdownToHtml(markdown)).length;
}
