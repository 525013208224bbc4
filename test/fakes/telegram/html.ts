/**
 * Telegram's HTML parse mode as the Bot API applies it: only the documented tags, properly nested, and only the
 * entities &lt; &gt; &amp; &quot; (and numeric ones). Answers the text as the reader sees it, whose length
 * Telegram checks against its limits, or the reason Telegram would give for refusing it.
 */

const TAGS = new Set(["b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a", "code", "pre", "blockquote", "tg-emoji"]);
const NAMED_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

export type ParsedHtml = { ok: true; text: string } | { ok: false; error: string };

export function parseTelegramHtml(html: string): ParsedHtml {
  const open: string[] = [];
  let text = "";
  let i = 0;
  while (i < html.length) {
    const char = html[i]!;
    if (char === "<") {
      const end = html.indexOf(">", i);
      if (end === -1) return fail(`unclosed start tag at byte offset ${i}`);
      const tag = /^<(\/?)([a-z-]+)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*$/i.exec(html.slice(i, end));
      if (!tag) return fail(`can't find end of the entity starting at byte offset ${i}`);
      const [, closing, rawName] = tag;
      const name = rawName!.toLowerCase();
      if (!TAGS.has(name)) return fail(`unsupported start tag "${name}" at byte offset ${i}`);
      if (closing) {
        if (open.pop() !== name) return fail(`unmatched end tag at byte offset ${i}, expected "</${open.at(-1) ?? ""}>", found "</${name}>"`);
      } else {
        open.push(name);
      }
      i = end + 1;
    } else if (char === "&") {
      const entity = /^&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/i.exec(html.slice(i));
      if (!entity) return fail(`character entity expected at byte offset ${i}`);
      const body = entity[1]!;
      if (body.startsWith("#")) {
        text += String.fromCodePoint(body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10));
      } else {
        const value = NAMED_ENTITIES[body.toLowerCase()];
        if (value === undefined) return fail(`unsupported HTML entity "&${body};"`);
        text += value;
      }
      i += entity[0].length;
    } else {
      text += char;
      i += 1;
    }
  }
  if (open.length > 0) return fail(`can't find end tag corresponding to start tag "${open.at(-1)}"`);
  return { ok: true, text };
}

function fail(detail: string): ParsedHtml {
  return { ok: false, error: `Bad Request: can't parse entities: ${detail}` };
}
