/**
 * What of a markdown reply is read aloud: its prose. Code blocks, tables, images and bare links stay in the text
 * reply and are left out of the speech (a link written with words is read as its words), and so do emoji and
 * decorative symbols, which are not words; one that stands between words ("I ❤️ it", "✅ 3 ❌ 1") says something, so
 * the text reply goes too. The prose is cut into parts at paragraph and sentence ends so each fits one voice
 * message. Every speech provider is given this text.
 */
import MarkdownIt, { type Token } from "markdown-it";

const md = new MarkdownIt({ linkify: true });

/** Block tokens whose content is skipped, up to their closing token; code blocks and html have no inline children, so are skipped anyway. */
const SKIPPED_BLOCKS: Readonly<Record<string, string>> = { table_open: "table_close" };
const BLOCK_ENDS = new Set(["paragraph_close", "heading_close", "list_item_close", "blockquote_close"]);

/** What is read aloud, and whether that is all of the reply (no code, table, image, bare link or symbol between words left out). */
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
    .map((paragraph) => withoutPictures(paragraph, left).replace(/\s+/g, " ").trim())
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
  /[\p{Extended_Pictographic}\p{Regional_Indicator}\p{Emoji_Modifier}\uFE0E\uFE0F\u20E3\u{E0020}-\u{E007F}]+(?:\u200D[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F\u{E0020}-\u{E007F}]+)*|[\u2190-\u21FF\u27F0-\u27FF\u2900-\u297F\u2022]|(?=\p{So})[\u2190-\u2BFF]/u;
/** Pictures side by side, with the spaces between them. */
const PICTURES = new RegExp(`(?:${PICTURE.source})(?:[ \\t]*(?:${PICTURE.source}))*`, "gu");
/** A word or number right before or after a position, on the same line: a picture there sits inside a sentence. */
const WORD_BEFORE = /(?<=[\p{L}\p{N}][ \t]*)/uy;
const WORD_AFTER = /[ \t]*[\p{L}\p{N}]/uy;
/** What joins and modifies a picture without showing one: a keycap's digit stays, so its marks leave nothing out. */
const MARKS = /[\uFE0E\uFE0F\u20E3\u200D\p{Emoji_Modifier}\u{E0020}-\u{E007F}\s]/gu;
/** A space left where a picture stood, before the punctuation that followed it. */
const SPACE_BEFORE_MARK = / +(?=[.,;:!?…。，、；：！？])/gu;

/**
 * `text` without its pictures. One between words or numbers on a line is part of what is said (I ❤️ it), so
 * `left.out` is set; at the start or end of a line or sentence (Done ✅. / 🎉 Congrats!) it is decoration.
 */
function withoutPictures(text: string, left: { out: boolean }): string {
  const spoken = text.replace(PICTURES, (run: string, at: number) => {
    left.out ||= run.replace(MARKS, "") !== "" && matchesAt(WORD_BEFORE, text, at) && matchesAt(WORD_AFTER, text, at + run.length);
    return " ";
  });
  return spoken.replace(SPACE_BEFORE_MARK, "");
}

function matchesAt(sticky: RegExp, text: string, at: number): boolean {
  sticky.lastIndex = at;
  return sticky.test(text);
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
      // A line's end, so a picture that ends one line is not taken as between the words around it.
      case "softbreak":
      case "hardbreak":
        text += "\n";
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
