/**
 * Untrusted content (chat text, quoted replies, sender names, chat titles, file names) reaches the model only
 * inside a frame that says where it came from, and with everything that could pass for our own markup made
 * inert first: the frame tags, the system prompt's section headings, and chat-template control tokens.
 * Neutralizing swaps one character of each such sequence for a look-alike, so people still read the text as
 * written but no parser or model can take it for the real thing.
 */

/** Section titles of the system prompt; text imitating them as headings is neutralized. */
export const PROMPT_SECTION_TITLES = {
  identity: "Identity",
  role: "Your Role",
  chat: "This Chat",
  toolGuide: "Tool Guide",
  skills: "Available Skills",
  mcp: "MCP Servers",
  principles: "Principles",
  runtime: "Runtime",
  equipped: "Equipped Skills",
  memory: "Memory",
} as const;

/** Every frame tag starts with this prefix, which is what makes it recognizable (and forgeable). */
const FRAME_TAG_PREFIX = "untrusted_";

export type FrameKind = "message" | "quote" | "summary" | "transcript" | "context" | "memory";

// Invisible characters someone could slip inside a token to dodge a plain-text match.
const INVISIBLE = "[\\u200B-\\u200F\\u2060-\\u2064\\uFEFF\\u00AD]*";

interface Rule {
  pattern: RegExp;
  replace: (match: string) => string;
}

const swapAngles = (s: string): string => s.replace(/</g, "\u2039").replace(/>/g, "\u203A");
const swapSquares = (s: string): string => s.replace(/\[/g, "\uFF3B").replace(/\]/g, "\uFF3D");

const sectionTitles = Object.values(PROMPT_SECTION_TITLES).map((t) => t.replace(/ /g, "\\s+")).join("|");

const RULES: Rule[] = [
  // <untrusted_message>, </ untrusted_quote ...>, with any case or invisible characters in between.
  { pattern: new RegExp(`<${INVISIBLE}\\s*/?\\s*${INVISIBLE}${FRAME_TAG_PREFIX}`, "gi"), replace: swapAngles },
  // <|im_start|>, <|im_end|>, <|endoftext|>, <|eot_id|>, <|start_header_id|> and the like.
  { pattern: /<\s*\|[^|<>\n]{0,40}\|\s*>/g, replace: swapAngles },
  // Llama 2 and Gemma templates, and bare sentence markers.
  { pattern: /<<\s*\/?\s*SYS\s*>>|<\s*\/?\s*(?:start_of_turn|end_of_turn|s|bos|eos)\s*>/gi, replace: swapAngles },
  { pattern: /\[\s*\/?\s*INST\s*\]/gi, replace: swapSquares },
  // "Human:", "Assistant:", "System:" role prefixes that start a line.
  {
    pattern: /^([ \t>]*)(human|assistant|system|user|developer)(\s*):/gim,
    replace: (m) => m.replace(/:$/, "\uFF1A"),
  },
  // Headings that imitate a section of the system prompt: "## Principles", "# Tool Guide".
  {
    pattern: new RegExp(`^([ \\t]*)#{1,6}(?=\\s*(?:${sectionTitles})\\b)`, "gim"),
    replace: (m) => m.replace(/#/g, "\uFF03"),
  },
];

/** Makes frame tags, prompt section headings and chat-template tokens inside `text` inert. */
export function neutralize(text: string): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule.pattern, rule.replace);
  return out;
}

/** A value for a frame attribute: neutralized, on one line, without quotes or angle brackets. */
export function escapeAttribute(value: string): string {
  return neutralize(value)
    .replace(/[\r\n\t]+/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** A short untrusted value (a name, a title) quoted for use inline in trusted text. */
export function quoteUntrusted(value: string): string {
  return `"${escapeAttribute(value)}"`;
}

/** Wraps untrusted `body` in `<untrusted_{kind} attr="...">` ... `</untrusted_{kind}>`. */
export function frame(kind: FrameKind, body: string, attributes: Record<string, string | undefined> = {}): string {
  const tag = `${FRAME_TAG_PREFIX}${kind}`;
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join("");
  return `<${tag}${attrs}>\n${neutralize(body)}\n</${tag}>`;
}
