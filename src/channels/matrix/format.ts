/**
 * A reply's content for Matrix: the Markdown as `body` and, where it has markup, the HTML Matrix clients render as
 * `formatted_body` (markdown-it, raw HTML in the model's text escaped, links only to web and mail addresses).
 * Model text never pings a room: `@room` is broken with a word joiner, and every message says whom it mentions
 * (`m.mentions`: nobody), so clients that follow intentional mentions notify no one.
 */
import MarkdownIt from "markdown-it";

const md = new MarkdownIt("commonmark", { html: false, linkify: false, typographer: false }).enable(["strikethrough", "table"]);
md.validateLink = (url) => /^(?:https?|mailto):/i.test(url);

export interface TextContent {
  msgtype: "m.text" | "m.notice";
  body: string;
  format?: "org.matrix.custom.html";
  formatted_body?: string;
  "m.mentions": Record<string, never>;
}

export function textContent(markdown: string, msgtype: TextContent["msgtype"] = "m.text"): TextContent {
  const body = defuseRoomMentions(markdown);
  const html = md.render(body).trim();
  // A single plain paragraph needs no HTML: the body says it all.
  const plain = html === `<p>${escapeHtml(body)}</p>`;
  return { msgtype, body, ...(plain ? {} : { format: "org.matrix.custom.html", formatted_body: html }), "m.mentions": {} };
}

/** `@room` notifies everyone in a room; a word joiner after the @ keeps the text and loses the ping. */
export function defuseRoomMentions(text: string): string {
  return text.replace(/@room\b/gi, (m) => `@\u2060${m.slice(1)}`);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** The size of a content as the homeserver measures it: UTF-8 bytes of its JSON. */
export function contentBytes(content: object): number {
  return Buffer.byteLength(JSON.stringify(content), "utf8");
}
