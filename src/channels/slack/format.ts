/**
 * Markdown as models write it -> Slack mrkdwn, parsed by markdown-it and rendered here: **bold** is *bold*, _em_
 * and *em* are _em_, ~~s~~ is ~s~, links are <url|text>, headings bold lines, lists keep their numbers or get a
 * bullet. `&`, `<` and `>` outside markup are always escaped, so nothing the model writes becomes a Slack control
 * sequence: no <!everyone>, <!channel>, <!here>, <@user> or <!subteam^...> pings anyone.
 */
import MarkdownIt, { type Token } from "markdown-it";
import { chunkText } from "../../core/text.js";
import { closingIndex } from "../markdown-tokens.js";

const md = new MarkdownIt("default", { html: false, linkify: false, typographer: false }).disable(["table"]);
// Only schemes Slack opens; anything else stays literal text.
md.validateLink = (url) => /^(?:https?|mailto):/i.test(url);

/** Slack's limit for a message's text (and its blocks' text together). */
export const MAX_TEXT_LENGTH = 4_000;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** Text as Slack shows it literally. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/[&<>]/g, (char) => ESCAPES[char]!);
}

export function markdownToMrkdwn(markdown: string): string {
  return renderBlocks(md.parse(markdown, {}), 0);
}

/**
 * Splits Markdown into messages whose mrkdwn is at most `maxLength` characters, then renders each. The measure
 * counts each character as long as its escape, an upper bound of what it renders to (markup only gets shorter:
 * **b** is *b*, [t](u) is <u|t>), and is additive as the chunker needs.
 */
export function mrkdwnChunks(markdown: string, maxLength = MAX_TEXT_LENGTH): string[] {
  // Most replies fit one message: the chunker, which measures each line's candidate chunk anew, is not needed.
  const chunks = escapedLength(markdown) <= maxLength ? [markdown] : chunkText(markdown, { maxLength, measure: escapedLength });
  return chunks
    .map(markdownToMrkdwn)
    .filter((chunk) => chunk.trim() !== "");
}

/** The chunker measures every candidate chunk, so this runs over the text many times: char codes, no iterator. */
function escapedLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // &amp; adds 4, &lt; and &gt; add 3.
    if (code === 38) n += 4;
    else if (code === 60 || code === 62) n += 3;
  }
  return n;
}

function renderBlocks(tokens: Token[], depth: number): string {
  const parts: string[] = [];
  let lastLine: number | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const end = token.nesting === 1 ? closingIndex(tokens, i) : i;
    const [startLine] = token.map ?? [lastLine ?? 0];
    if (lastLine !== undefined) parts.push(startLine! > lastLine ? "\n\n" : "\n");
    parts.push(renderBlock(tokens, i, end, depth));
    lastLine = (token.map ?? [0, lastLine ?? 0])[1];
    i = end;
  }
  return parts.join("");
}

function renderBlock(tokens: Token[], at: number, end: number, depth: number): string {
  const token = tokens[at]!;
  const inner = tokens.slice(at + 1, end);
  switch (token.type) {
    case "paragraph_open":
    case "inline":
      return renderInline(token.type === "inline" ? (token.children ?? []) : (inner[0]?.children ?? []));
    case "heading_open":
      return `*${renderInline(inner[0]?.children ?? [])}*`;
    case "hr":
      return "———";
    case "fence":
    case "code_block": {
      const code = token.content.replace(/\n$/, "");
      return code === "" ? "" : `\`\`\`\n${escapeMrkdwn(code)}\n\`\`\``;
    }
    case "blockquote_open":
      return renderBlocks(inner, depth)
        .split("\n")
        .map((line) => `> ${line}`)
        .join("\n");
    case "bullet_list_open":
    case "ordered_list_open":
      return renderBlocks(inner, depth);
    case "list_item_open": {
      const marker = token.info ? `${token.info}${token.markup}` : "•";
      return `${"    ".repeat(depth)}${marker} ${renderBlocks(inner, depth + 1)}`;
    }
    default:
      return escapeMrkdwn(token.content);
  }
}


const MARKS: Record<string, string> = { strong: "*", em: "_", s: "~" };

function renderInline(tokens: Token[]): string {
  let out = "";
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const mark = MARKS[token.type.replace(/_(open|close)$/, "")];
    if (mark) out += mark;
    else if (token.type === "link_open") {
      const close = tokens.findIndex((t, j) => j > i && t.type === "link_close");
      const label = renderInline(tokens.slice(i + 1, close === -1 ? tokens.length : close));
      out += link(String(token.attrGet("href") ?? ""), label);
      i = close === -1 ? tokens.length : close;
    } else if (token.type === "code_inline") out += `\`${escapeMrkdwn(token.content)}\``;
    else if (token.type === "softbreak" || token.type === "hardbreak") out += "\n";
    else if (token.type === "image") out += link(String(token.attrGet("src") ?? ""), escapeMrkdwn(token.content));
    else out += escapeMrkdwn(token.content);
  }
  return out;
}

/** <url|label>; the label may not hold `|` or `>` (already escaped), the URL is percent-encoded where it would break out. */
function link(url: string, label: string): string {
  const safeUrl = escapeMrkdwn(url.replace(/[<>|\s]/g, (c) => encodeURIComponent(c)));
  const text = label.replace(/\|/g, "¦");
  return text === "" || text === escapeMrkdwn(url) ? `<${safeUrl}>` : `<${safeUrl}|${text}>`;
}
