/**
 * A Markdown reply rendered as Feishu message content: an interactive card (JSON 2.0, whose markdown element
 * renders headings, lists, code and tables), a rich-text post (text and links), or plain text. Feishu refuses
 * some cards (too many tables, too large, unparsable), so each format names the simpler ones to fall back to.
 */
import type { MessageType } from "./api.js";

export type ReplyFormat = "card" | "post" | "text";

export interface RenderedMessage {
  format: ReplyFormat;
  msgType: Extract<MessageType, "interactive" | "post" | "text">;
  /** The JSON string Feishu takes as `content`. */
  content: string;
}

const FALLBACKS: Record<ReplyFormat, ReplyFormat[]> = {
  card: ["card", "post", "text"],
  post: ["post", "text"],
  text: ["text"],
};

/** The formats to try in order, `preferred` first; plain text is always last. */
export function formatsFrom(preferred: ReplyFormat): ReplyFormat[] {
  return FALLBACKS[preferred];
}

export function render(markdown: string, format: ReplyFormat): RenderedMessage {
  const text = disarmMentions(markdown);
  switch (format) {
    case "card":
      return { format, msgType: "interactive", content: JSON.stringify(card(text)) };
    case "post":
      return { format, msgType: "post", content: JSON.stringify({ zh_cn: { title: "", content: postParagraphs(text) } }) };
    case "text":
      return { format, msgType: "text", content: JSON.stringify({ text }) };
  }
}

function card(markdown: string): object {
  return { schema: "2.0", config: { width_mode: "fill" }, body: { elements: [{ tag: "markdown", content: markdown }] } };
}

type PostElement = { tag: "text"; text: string } | { tag: "a"; text: string; href: string };

const LINK = /\[([^\]\n]*)\]\((https?:\/\/[^\s)]+)\)/g;

/** One paragraph per line; Markdown links become link elements, everything else stays text. */
function postParagraphs(markdown: string): PostElement[][] {
  return markdown.split("\n").map((line) => {
    const elements: PostElement[] = [];
    let last = 0;
    for (const match of line.matchAll(LINK)) {
      if (match.index > last) elements.push({ tag: "text", text: line.slice(last, match.index) });
      elements.push({ tag: "a", text: match[1] || match[2]!, href: match[2]! });
      last = match.index + match[0].length;
    }
    if (last < line.length || elements.length === 0) elements.push({ tag: "text", text: line.slice(last) });
    return elements;
  });
}

/**
 * Card markdown and text messages turn `<at id=all></at>` into a real mention. A reply is model output, which
 * chat users can steer, so a mention tag in it is shown as text (a zero-width space after `<`), never sent.
 */
export function disarmMentions(text: string): string {
  return text.replace(/<(at\b)/gi, "<\u200b$1");
}
