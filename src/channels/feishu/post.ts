/**
 * A received rich-text ("post") message flattened to Markdown-like text: styles as `**bold**`, links as
 * `[text](url)`, mentions resolved, code blocks fenced; images and videos become attachments, marked in the
 * text where they stood. Feishu sometimes wraps the post in a locale key (`{"zh_cn": {...}}`).
 */
import { z } from "zod";
import type { Attachment } from "../../core/types.js";
import type { Mentions } from "./mentions.js";

const elementSchema = z.looseObject({ tag: z.string() });
type PostElement = z.infer<typeof elementSchema>;

const postBodySchema = z.object({
  title: z.string().nullish(),
  content: z.array(z.array(z.unknown()).nullish()).nullish(),
});
type PostBody = z.infer<typeof postBodySchema>;

/** Records a media element as an attachment and returns its marker for the text, e.g. `[image 1]`. */
type MediaMarker = (kind: "image" | "video", key: unknown) => string;

export interface PostParts {
  text: string;
  attachments: Attachment[];
}

/** `attach` turns a media key into an attachment (or null when the key is unusable). */
export function flattenPost(
  content: unknown,
  mentions: Mentions,
  attach: (kind: "image" | "video", key: string) => Attachment | null,
): PostParts | null {
  const body = postBodyOf(content);
  if (!body) return null;
  const attachments: Attachment[] = [];
  const media: MediaMarker = (kind, key) => {
    const attachment = typeof key === "string" ? attach(kind, key) : null;
    if (!attachment) return `[${kind}]`;
    attachments.push(attachment);
    return `[${kind} ${attachments.length}]`;
  };
  const lines: string[] = [];
  if (body.title) lines.push(`**${body.title}**`);
  for (const paragraph of body.content ?? []) {
    const elements = (paragraph ?? []).flatMap((item) => {
      const parsed = elementSchema.safeParse(item);
      return parsed.success ? [parsed.data] : [];
    });
    // A removed bot mention at the start of a paragraph leaves the space that followed it.
    lines.push(elements.map((el) => renderElement(el, mentions, media)).join("").replace(/^[ \t]+/, ""));
  }
  return { text: lines.join("\n").trim(), attachments };
}

function postBodyOf(content: unknown): PostBody | null {
  const direct = postBodySchema.safeParse(content);
  if (direct.success && direct.data.content) return direct.data;
  if (content === null || typeof content !== "object") return null;
  for (const value of Object.values(content)) {
    const wrapped = postBodySchema.safeParse(value);
    if (wrapped.success && wrapped.data.content) return wrapped.data;
  }
  return null;
}

function renderElement(el: PostElement, mentions: Mentions, media: MediaMarker): string {
  const text = typeof el.text === "string" ? el.text : "";
  switch (el.tag) {
    case "text":
      return styled(text, el.style);
    case "a":
      return typeof el.href === "string" && /^https?:\/\//i.test(el.href) ? `[${text || el.href}](${el.href})` : text;
    case "at":
      return renderAt(el, mentions);
    case "img":
      return media("image", el.image_key);
    case "media":
      return media("video", el.file_key);
    case "emotion":
      return typeof el.emoji_type === "string" ? `:${el.emoji_type}:` : "";
    case "code_block":
      return `\n\`\`\`${typeof el.language === "string" ? el.language.toLowerCase() : ""}\n${text}\n\`\`\`\n`;
    case "hr":
      return "\n---\n";
    default:
      return text;
  }
}

function renderAt(el: PostElement, mentions: Mentions): string {
  const id = typeof el.user_id === "string" ? el.user_id : "";
  if (id === "all" || id === "@_all") return "@all";
  if (id.startsWith("@_")) return mentions.render(id);
  return typeof el.user_name === "string" && el.user_name ? `@${el.user_name}` : "";
}

function styled(text: string, style: unknown): string {
  if (!Array.isArray(style) || text.trim() === "") return text;
  let out = text;
  if (style.includes("bold")) out = `**${out}**`;
  if (style.includes("italic")) out = `*${out}*`;
  if (style.includes("lineThrough")) out = `~~${out}~~`;
  return out;
}
