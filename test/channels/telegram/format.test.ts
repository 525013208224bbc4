import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { entityCount, markdownToHtml, MAX_ENTITIES, telegramChunks, visibleText } from "../../../src/channels/telegram/format.js";
import { parseTelegramHtml } from "../../fakes/telegram/html.js";
import { seededRandom } from "../../helpers/seeded-random.js";

describe("markdownToHtml", () => {
  it.each([
    ["**bold** and __also bold__", "<b>bold</b> and <b>also bold</b>"],
    ["*italic* and _italic_ but snake_case_name stays", "<i>italic</i> and <i>italic</i> but snake_case_name stays"],
    ["~~gone~~ ||secret||", "<s>gone</s> <tg-spoiler>secret</tg-spoiler>"],
    ["use `a < b && c` here", "use <code>a &lt; b &amp;&amp; c</code> here"],
    ["[the docs](https://example.com/a?b=1&c=2)", '<a href="https://example.com/a?b=1&amp;c=2">the docs</a>'],
    ["**bold with *italic* inside**", "<b>bold with <i>italic</i> inside</b>"],
    ["# Title", "<b>Title</b>"],
    ["- one\n  * two\n1. three", "• one\n  • two\n1. three"],
    ["> quoted **text**\n> more", "<blockquote>quoted <b>text</b>\nmore</blockquote>"],
    ["---", "———"],
    ["2 * 3 * 4 and a**b", "2 * 3 * 4 and a**b"],
    ["\\*not italic\\* <tag> & \"q\"", "*not italic* &lt;tag&gt; &amp; &quot;q&quot;"],
    ["[x](javascript:alert(1))", "[x](javascript:alert(1))"],
    ["[profile](tg://user?id=1)", '<a href="tg://user?id=1">profile</a>'],
    ["one\n\ntwo", "one\n\ntwo"],
    ["> outer\n>> inner", "<blockquote>outer\ninner</blockquote>"],
    ["| a | b |\n|---|---|", "| a | b |\n|---|---|"],
  ])("%j", (markdown, html) => {
    expect(markdownToHtml(markdown)).toBe(html);
  });

  it("renders fenced code with its language, escaped, and leaves an unclosed fence open to the end", () => {
    expect(markdownToHtml("```ts\nconst a = b < c && **d**;\n```\nafter")).toBe(
      '<pre><code class="language-ts">const a = b &lt; c &amp;&amp; **d**;</code></pre>\nafter',
    );
    expect(markdownToHtml("```\nplain\ncode")).toBe("<pre>plain\ncode</pre>");
  });

  it("always produces HTML that Telegram parses, even from broken Markdown", () => {
    for (const markdown of ["**unclosed", "`unclosed", "[text](", "***", "_a *b_ c*", "<b>raw html</b>", "&amp; &nbsp;", "> ", "```"]) {
      expect(parseTelegramHtml(markdownToHtml(markdown)), markdown).toMatchObject({ ok: true });
    }
  });
});

describe("markdownToHtml of one plain line", () => {
  // A trailing line break changes nothing in the rendering but takes the parser's path.
  const parsed = (line: string) => markdownToHtml(`${line}\n`);

  it.each(["a *b* c", "a _b_ c", `Congratulations ${"❤️".repeat(40)} *you*`, `a${"\ufe0f".repeat(40)}*`, "a ~~b~~", "a `b` c", "a [b](https://c.d) e", "a <https://c.d> e", "a &amp; b", "a ||b|| c", "a \\*b\\*", "a  b", "ab "])(
    "renders %j as markdown-it does",
    (line) => expect(markdownToHtml(line)).toBe(parsed(line)),
  );

  it("answers long lines that fail the plain-line check at their end without backtracking", () => {
    // A pattern that matches a character two ways takes exponential time on such a line (30 hearts: ~1 min).
    // vm's timeout interrupts synchronous code: a regression fails here instead of hanging the suite.
    for (const line of [`a${"\u2764\ufe0f".repeat(40)}*`, `a${"\ufe0f".repeat(40)} `, `a${"\u200d".repeat(40)}*`]) {
      expect(runInNewContext("render(line)", { render: markdownToHtml, line }, { timeout: 2_000 })).toBe(parsed(line));
    }
  });

  it("renders random lines as markdown-it does, whatever their characters", () => {
    const random = seededRandom(20);
    // What a plain line may hold, and what starts markup or is trimmed or replaced by markdown-it.
    const plain = [..."aZé中ß1 ,.;:?!'\"()/%-，。😀\u200d\ufe0f\u0301"];
    const special = [..."*_~`[]<>&#|\\=+\t\u0000\u00a0"];
    for (let round = 0; round < 5_000; round++) {
      const length = 1 + Math.floor(random() * 10);
      const pick = (from: string[]) => from[Math.floor(random() * from.length)]!;
      const line = Array.from({ length }, () => pick(random() < 0.3 ? special : plain)).join("");
      expect(markdownToHtml(line), JSON.stringify(line)).toBe(parsed(line));
    }
  });
});

describe("telegramChunks", () => {
  it("keeps a short reply in one chunk with its plain-text twin", () => {
    expect(telegramChunks("Hello **there**", 4096)).toEqual([{ html: "Hello <b>there</b>", plain: "Hello there" }]);
  });

  it("measures visible text, not markup: 5000 characters of links fit in one 4096 message", () => {
    const markdown = Array.from({ length: 100 }, (_, i) => `[link ${i}](https://example.com/${"x".repeat(30)})`).join("\n");
    expect(markdown.length).toBeGreaterThan(4096);
    const chunks = telegramChunks(markdown, 4096);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.html.match(/<a href/g)).toHaveLength(100);
  });

  it("cuts where a message would carry more than 100 entities, which Telegram would leave unformatted", () => {
    const markdown = Array.from({ length: 150 }, (_, i) => `- **n${i}** \`c${i}\``).join("\n");
    expect(markdown.length).toBeLessThan(4096);
    const chunks = telegramChunks(markdown, 4096);
    expect(chunks.map((c) => entityCount(c.html))).toEqual([100, 100, 100]);
    expect(chunks.map((c) => c.plain).join("\n")).toBe(Array.from({ length: 150 }, (_, i) => `• n${i} c${i}`).join("\n"));
    expect(entityCount('<pre><code class="language-js">x</code></pre> <b>a</b> <a href="https://e.com">l</a>')).toBe(3);
  });

  it("closes a code block at the cut and reopens it with its language in the next chunk", () => {
    const code = Array.from({ length: 400 }, (_, i) => `line ${i} = value_${i} + other_${i};`).join("\n");
    const chunks = telegramChunks(`Intro\n\`\`\`python\n${code}\n\`\`\`\nOutro`, 4096);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks.slice(1, -1)) expect(chunk.html).toMatch(/^<pre><code class="language-python">[\s\S]*<\/code><\/pre>$/);
    expect(chunks.map((c) => c.plain).join("\n")).toContain("line 399 = value_399 + other_399;");
  });

  it("drops chunks with nothing visible", () => {
    expect(telegramChunks("```\n```\n\n   \n", 4096)).toEqual([]);
  });
});

const WORDS = ["hello", "world", "😀", "👨‍👩‍👧", "𝔘𝔫𝔦", "漢字テスト", "中文内容", "a<b", "x&y", "\"quoted\"", "𠜎𠜱𠝹", "café", "Ωmega"];

/** Random Markdown, and the words a reader must find again in order. */
function randomMarkdown(next: () => number): { markdown: string; words: string[] } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const words: string[] = [];
  const word = () => {
    const w = `${pick(WORDS)}${Math.floor(next() * 1000)}`;
    words.push(w);
    return w;
  };
  const line = (n: number) => Array.from({ length: n }, () => {
    const w = word();
    const style = next();
    return style < 0.1 ? `**${w}**` : style < 0.2 ? `_${w}_` : style < 0.27 ? `\`${w}\`` : style < 0.32 ? `[${w}](https://e.com/${w.length})` : w;
  }).join(" ");
  const blocks: string[] = [];
  const blockCount = 1 + Math.floor(next() * 40);
  for (let b = 0; b < blockCount; b++) {
    const kind = next();
    if (kind < 0.2) blocks.push(`\`\`\`${pick(["", "js", "python"])}\n${Array.from({ length: 1 + Math.floor(next() * 120) }, () => line(1 + Math.floor(next() * 12))).join("\n")}\n\`\`\``);
    else if (kind < 0.3) blocks.push(`# ${line(3)}`);
    else if (kind < 0.4) blocks.push(Array.from({ length: 1 + Math.floor(next() * 10) }, () => `- ${line(4)}`).join("\n"));
    else if (kind < 0.5) blocks.push(`> ${line(8)}`);
    else if (kind < 0.6) blocks.push(Array.from({ length: 200 + Math.floor(next() * 900) }, () => word()).join("")); // no spaces at all
    else blocks.push(line(1 + Math.floor(next() * 200)));
  }
  return { markdown: blocks.join(next() < 0.5 ? "\n" : "\n\n"), words };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("telegramChunks over random Markdown", () => {
  // 200 random documents, each split by repeated rendering: CPU-bound, so it gets room on a loaded machine.
  it("never exceeds the limit as Telegram measures it, always parses, never splits a character, and loses no text", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { markdown, words } = randomMarkdown(seededRandom(seed));
      const limit = seed % 3 === 0 ? 1024 : 4096;
      const chunks = telegramChunks(markdown, limit);
      for (const chunk of chunks) {
        const parsed = parseTelegramHtml(chunk.html);
        if (!parsed.ok) throw new Error(`seed ${seed}: ${parsed.error}`);
        expect(parsed.text, `seed ${seed}`).toBe(chunk.plain);
        expect(parsed.text.length, `seed ${seed}`).toBeLessThanOrEqual(limit);
        expect(entityCount(chunk.html), `seed ${seed}`).toBeLessThanOrEqual(MAX_ENTITIES);
        expect(LONE_SURROGATE.test(chunk.plain), `seed ${seed}`).toBe(false);
      }
      const all = chunks.map((c) => c.plain).join("").replace(/\s+/g, "");
      let from = 0;
      for (const w of words) {
        const at = all.indexOf(w, from);
        if (at === -1) throw new Error(`seed ${seed}: "${w}" lost (or out of order)`);
        from = at + w.length;
      }
    }
  }, 30_000);

  it("keeps the plain text equal to what a reader sees in the HTML", () => {
    expect(visibleText(markdownToHtml("a **b** `<c>` [d](https://e.com) &"))).toBe("a b <c> d &");
  });
});
