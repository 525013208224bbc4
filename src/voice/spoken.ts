/**
 * What of a markdown reply is read aloud: its prose. Code blocks, tables, images and bare links stay in the text
 * reply and are left out of the speech (a link written with words is read as its words), and so do emoji and
 * decorative symbols, which are not words; the prose is cut into parts at paragraph and sentence ends so each fits
 * one voice message. Every speech provider is given this text.
 */
import MarkdownIt, { type Token } from "markdown-it";

const md = new MarkdownIt({ linkify: true });

/** Block tokens whose content is skipped, up to their closing token; code blocks and html have no inline children, so are skipped anyway. */
const SKIPPED_BLOCKS: Readonly<Record<string, string>> = { table_open: "table_close" };
const BLOCK_ENDS = new Set(["paragraph_close", "heading_close", "list_item_close", "blockquote_close"]);

/** What is read aloud, and whether that is all of the reply (no code, table, image or bare link left out). */
export interface SpokenText {
  text: string;
  whole: boolean;
}

const UNSPOKEN_BLOCKS = new Set(["fence", "code_block", "html_block"]);

export function spokenText(markdown: string): SpokenText {
  const tokens = md.parse(markdown, {});
  const out: string[] = [];
  const left = { out: false };
  let skipUntil: string | undefined;
  for (const token of tokens) {
    if (skipUntil) {
      if (token.type === skipUntil) skipUntil = undefined;
      continue;
    }
    if (SKIPPED_BLOCKS[token.type]) skipUntil = SKIPPED_BLOCKS[token.type];
    else if (token.type === "inline") out.push(inlineSpeech(token.children ?? [], left));
    else if (BLOCK_ENDS.has(token.type)) out.push("\n\n");
    left.out ||= Boolean(SKIPPED_BLOCKS[token.type]) || UNSPOKEN_BLOCKS.has(token.type);
  }
  const text = out
    .join("")
    .split(/\n{2,}/)
    .map((paragraph) => withoutPictures(paragraph).replace(/\s+/g, " ").trim())
    .filter((paragraph) => /[\p{L}\p{N}]/u.test(paragraph))
    .join("\n\n");
  return { text, whole: !left.out };
}

/**
 * Emoji with what joins and modifies them (skin tones, presentation selectors, zero-width joiners, keycap marks,
 * flags as regional-indicator pairs or tag sequences), arrows, the bullet, and the other symbols of the blocks from
 * arrows to dingbats (★, ✓, ■, ➜): a speech engine reads each as its name ("grinning face", "right arrow"). A
 * keycap's digit, letters, numbers, currency and math signs (×, ≤, °) stay.
 */
const PICTURE =
  /[\p{Extended_Pictographic}\p{Regional_Indicator}\p{Emoji_Modifier}\uFE0E\uFE0F\u20E3\u{E0020}-\u{E007F}]+(?:\u200D[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F\u{E0020}-\u{E007F}]+)*|[\u2190-\u21FF\u27F0-\u27FF\u2900-\u297F\u2022]|(?=\p{So})[\u2190-\u2BFF]/gu;
/** A space left where a picture stood, before the punctuation that followed it. */
const SPACE_BEFORE_MARK = / +(?=[.,;:!?…。，、；：！？])/gu;

function withoutPictures(text: string): string {
  return text.replace(PICTURE, " ").replace(SPACE_BEFORE_MARK, "");
}

function inlineSpeech(children: Token[], left: { out: boolean }): string {
  let text = "";
  // Inside a link: its words are read, unless they are the address itself (an autolink or a bare URL).
  let link: { href: string; words: string } | undefined;
  for (const child of children) {
    switch (child.type) {
      case "link_open":
        link = { href: String(child.attrGet("href") ?? ""), words: "" };
        break;
      case "link_close":
        if (link && !isAddress(link.words, link.href)) text += link.words;
        else left.out = true;
        link = undefined;
        break;
      case "image":
        left.out = true;
        break;
      case "text":
      case "code_inline":
        if (link) link.words += child.content;
        else text += child.content;
        break;
      case "softbreak":
      case "hardbreak":
        text += " ";
        break;
      default:
        break;
    }
  }
  return text;
}

function isAddress(words: string, href: string): boolean {
  const bare = (s: string): string => s.replace(/^(https?:\/\/|mailto:)/i, "").replace(/\/$/, "");
  return words.trim() === "" || bare(words.trim()) === bare(href) || /^(https?:\/\/|www\.)/i.test(words.trim());
}

/** Cuts `text` into parts of at most `maxChars`, at paragraph, then sentence, then word ends. */
export function speechParts(text: string, maxChars: number): string[] {
  const units = text
    .split(/\n\n/)
    .flatMap((paragraph) => (paragraph.length <= maxChars ? [paragraph] : (paragraph.match(/[^.!?。！？]+(?:[.!?。！？]+|$)\s*/gu) ?? [paragraph])))
    .flatMap((sentence) => (sentence.length <= maxChars ? [sentence.trim()] : wordsWithin(sentence, maxChars)));
  return packed(units, maxChars);
}

/** A sentence too long for one part, as pieces of whole words (a word longer than a part is cut). */
function wordsWithin(sentence: string, maxChars: number): string[] {
  const chunks = sentence
    .trim()
    .split(/\s+/)
    .flatMap((word) => Array.from({ length: Math.ceil(word.length / maxChars) }, (_, i) => word.slice(i * maxChars, (i + 1) * maxChars)));
  return packed(chunks, maxChars);
}

/** Joins consecutive units with spaces into as few parts of at most `maxChars` as their order allows. */
function packed(units: readonly string[], maxChars: number): string[] {
  const parts: string[] = [];
  let current = "";
  for (const unit of units) {
    if (unit === "") continue;
    if (current && current.length + 1 + unit.length > maxChars) {
      parts.push(current);
      current = "";
    }
    current = current ? `${current} ${unit}` : unit;
  }
  if (current) parts.push(current);
  return parts;
}
