/**
 * Markdown as models write it -> the HTML subset Telegram accepts (b, i, s, code, pre, a, blockquote, tg-spoiler),
 * parsed by markdown-it (CommonMark with strikethrough) and rendered here, since Telegram's HTML is not HTML.
 * Headings become bold lines, list items keep their numbers or get a bullet, tables stay as text. Everything that
 * is not markup is escaped, so the output always parses; an unmatched delimiter stays a literal character.
 * The visible text is never longer than the Markdown it came from, which the chunker relies on.
 */
import MarkdownIt, { type StateInline, type Token } from "markdown-it";
import { chunkText } from "../../core/text.js";
import { closingIndex } from "../markdown-tokens.js";

const md = new MarkdownIt("default", { html: false, linkify: false, typographer: false }).disable(["table"]);
// Only the schemes Telegram opens; anything else stays literal text.
md.validateLink = (url) => /^(?:https?|tg|mailto):/i.test(url);
md.inline.ruler.at("text", textUntilMarkup);
md.inline.ruler.before("emphasis", "spoiler", spoiler);

export function markdownToHtml(markdown: string): string {
  if (PLAIN_LINE.test(markdown)) return escapeHtml(markdown);
  return renderBlocks(md.parse(markdown, {}), 0, false);
}

/**
 * One line that Markdown leaves as it is: starting with a letter (so no block: heading, list, quote, code), ending
 * without a space, and without a character that starts inline markup, an entity or an escape. Short replies often
 * are; markdown-it's parse of them costs ~30 us. Every character matches one way only (U+FE0F is in \p{M}): a
 * character two branches take makes a long line that fails at its end take exponential time.
 */
const PLAIN_LINE = /^\p{L}(?:[\p{L}\p{M}\p{N}\p{Extended_Pictographic} ,.;:?!'"()/%\-，。？！、：；“”‘’（）]|\u200d)*(?<! )$/u;

/** Renders sibling blocks, keeping the source's blank lines between them. */
function renderBlocks(tokens: Token[], depth: number, inQuote: boolean): string {
  let out = "";
  let lastLine: number | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const end = token.nesting === 1 ? closingIndex(tokens, i) : i;
    const html = renderBlock(tokens, i, end, depth, inQuote);
    const [startLine, endLine] = token.map ?? [lastLine ?? 0, lastLine ?? 0];
    if (lastLine !== undefined) out += startLine > lastLine ? "\n\n" : "\n";
    out += html;
    lastLine = endLine;
    i = end;
  }
  return out;
}

function renderBlock(tokens: Token[], at: number, end: number, depth: number, inQuote: boolean): string {
  const token = tokens[at]!;
  const inner = tokens.slice(at + 1, end);
  switch (token.type) {
    case "paragraph_open":
      return renderInline(inner[0]?.children ?? []);
    case "heading_open":
      return `<b>${renderInline(inner[0]?.children ?? [])}</b>`;
    case "hr":
      return "———";
    case "fence":
      return codeBlock(token.content, /^[\w+#.-]*/.exec(token.info)![0]);
    case "code_block":
      return codeBlock(token.content, "");
    case "blockquote_open": {
      // Telegram does not nest quotes: an inner quote joins the outer one.
      const body = renderBlocks(inner, depth, true);
      return inQuote ? body : `<blockquote>${body}</blockquote>`;
    }
    case "bullet_list_open":
    case "ordered_list_open":
      return renderBlocks(inner, depth, inQuote);
    case "list_item_open": {
      const marker = token.info ? `${token.info}${token.markup}` : "•";
      return `${"  ".repeat(depth)}${marker} ${renderBlocks(inner, depth + 1, inQuote)}`;
    }
    case "inline":
      return renderInline(token.children ?? []);
    default:
      return escapeHtml(token.content);
  }
}


function codeBlock(content: string, language: string): string {
  const code = content.replace(/\n$/, "");
  if (code === "") return "";
  const body = escapeHtml(code);
  return language ? `<pre><code class="language-${language}">${body}</code></pre>` : `<pre>${body}</pre>`;
}

const INLINE_TAGS: Record<string, string> = { strong: "b", em: "i", s: "s", spoiler: "tg-spoiler" };

function renderInline(tokens: Token[]): string {
  let out = "";
  for (const token of tokens) {
    const kind = token.type.replace(/_(open|close)$/, "");
    const tag = INLINE_TAGS[kind];
    if (tag) out += token.nesting === 1 ? `<${tag}>` : `</${tag}>`;
    else if (token.type === "link_open") out += `<a href="${escapeHtml(String(token.attrGet("href") ?? ""))}">`;
    else if (token.type === "link_close") out += "</a>";
    else if (token.type === "code_inline") out += `<code>${escapeHtml(token.content)}</code>`;
    else if (token.type === "softbreak" || token.type === "hardbreak") out += "\n";
    else if (token.type === "image") out += `<a href="${escapeHtml(String(token.attrGet("src") ?? ""))}">${escapeHtml(token.content)}</a>`;
    else out += escapeHtml(token.content);
  }
  return out;
}

/** markdown-it's text rule, stopping also at `|` so that `||spoiler||` can start mid-line. */
function textUntilMarkup(state: StateInline, silent: boolean): boolean {
  let pos = state.pos;
  while (pos < state.posMax && !STOP.has(state.src.charCodeAt(pos))) pos++;
  if (pos === state.pos) return false;
  if (!silent) state.pending += state.src.slice(state.pos, pos);
  state.pos = pos;
  return true;
}

const STOP = new Set([..."\n!#$%&*+-:<=>@[\\]^_`{}~|"].map((c) => c.charCodeAt(0)));

/** `||text||`, Telegram's spoiler, as strict as emphasis: no space just inside the bars. */
function spoiler(state: StateInline, silent: boolean): boolean {
  const start = state.pos;
  if (!state.src.startsWith("||", start)) return false;
  const close = state.src.indexOf("||", start + 3);
  if (close === -1 || close >= state.posMax || /\s/.test(state.src[start + 2]!) || /\s/.test(state.src[close - 1]!)) return false;
  if (!silent) {
    state.push("spoiler_open", "tg-spoiler", 1);
    const max = state.posMax;
    state.pos = start + 2;
    state.posMax = close;
    state.md.inline.tokenize(state);
    state.posMax = max;
    state.push("spoiler_close", "tg-spoiler", -1);
  }
  state.pos = close + 2;
  return true;
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
 * Telegram formats at most this many entities (our tags) of one message and shows the rest as plain text
 * (tdlib/telegram-bot-api#820).
 */
export const MAX_ENTITIES = 100;

/** The entities Telegram makes of our HTML: one per opening tag, a `<pre>` with its `<code class>` being one. */
export function entityCount(html: string): number {
  let count = 0;
  for (const _ of html.matchAll(/<(?!\/|code class=)/g)) count += 1;
  return count;
}

/**
 * At least the number of entities the Markdown renders to: every entity needs one of these characters in the
 * source (emphasis, code, links, spoilers, headings, quotes, autolinks), or a line indented as code.
 */
function entityBound(markdown: string): number {
  let count = 0;
  for (const _ of markdown.matchAll(/[*_`[~|#>=<-]|^(?: {4}|\t)/gm)) count += 1;
  return count;
}

/**
 * Splits Markdown into messages of at most `maxLength` UTF-16 units of visible text, as Telegram counts them, and
 * at most MAX_ENTITIES entities, and renders each one. The split happens before rendering so no tag is cut; code
 * blocks are closed and reopened. (A single line with more entities than that stays whole: cutting inside a line
 * could cut a span's markup.)
 */
export function telegramChunks(markdown: string, maxLength: number): TelegramChunk[] {
  const visible = visibleLength(maxLength);
  return chunkText(markdown, { maxLength, measure: visible })
    .flatMap((chunk) => (fewEntities(chunk) ? [chunk] : chunkText(chunk, { maxLength, measure: (part) => (fewEntities(part) ? visible(part) : maxLength + 1) })))
    .map((chunk) => {
      const html = markdownToHtml(chunk);
      return { html, plain: visibleText(html) };
    })
    .filter((chunk) => chunk.plain.trim() !== "");
}

/**
 * Whether the Markdown renders to at most MAX_ENTITIES entities, rendering only when its markup characters could
 * make more: most chunks pass without, and only the few that fail are cut again, by entities. A single line passes
 * (see telegramChunks).
 */
function fewEntities(markdown: string): boolean {
  return !markdown.includes("\n") || entityBound(markdown) <= MAX_ENTITIES || entityCount(markdownToHtml(markdown)) <= MAX_ENTITIES;
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
