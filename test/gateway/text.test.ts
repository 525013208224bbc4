import { describe, expect, it } from "vitest";
import { chunkText, codePointLength } from "../../src/core/text.js";
import { seededRandom } from "../helpers/seeded-random.js";

// Fences stand on lines of their own, as a model writes them.
const PIECES = ["word ", "emoji 😀👍🏽 ", "中文字符测试 ", "\n", "\n\n", "\n```ts\nconst x = 1;\n", "\n```\n", "`code` ", "**bold** ", "a".repeat(300), "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 "];

function randomMarkdown(next: () => number): string {
  const parts: string[] = [];
  const count = Math.floor(next() * 400);
  for (let i = 0; i < count; i += 1) parts.push(PIECES[Math.floor(next() * PIECES.length)]!);
  return parts.join("");
}

const fenceCount = (chunk: string) => chunk.split("\n").filter((l) => /^\s*(```|~~~)/.test(l)).length;
const withoutFencesAndSpace = (text: string) =>
  text
    .split("\n")
    .filter((l) => !/^\s*(```|~~~)/.test(l))
    .join("")
    .replace(/\s+/g, "");

describe("chunkText", () => {
  it("returns short text whole", () => {
    expect(chunkText("hello\nworld", { maxLength: 100 })).toEqual(["hello\nworld"]);
    expect(chunkText("   \n", { maxLength: 100 })).toEqual([]);
  });

  it("cuts where a line-by-line fill would, measuring each chunk a logarithmic number of times", () => {
    const text = Array.from({ length: 1_000 }, (_, i) => `line ${i} ${"x".repeat(i % 37)}`).join("\n");
    let measured = 0;
    // Candidates of several lines; single lines are measured once each, to break those too long.
    const chunks = chunkText(text, { maxLength: 4_096, measure: (s) => ((measured += s.includes("\n") ? 1 : 0), s.length) });

    const greedy: string[][] = [[]];
    for (const line of text.split("\n")) {
      if ([...greedy.at(-1)!, line].join("\n").length > 4_096) greedy.push([]);
      greedy.at(-1)!.push(line);
    }
    expect(chunks).toEqual(greedy.map((lines) => lines.join("\n")));
    expect(measured).toBeLessThan(chunks.length * 40);
  });

  it("closes a code block at the cut and reopens it with its language", () => {
    const code = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    const chunks = chunkText(`Intro\n\`\`\`python\n${code}\n\`\`\`\nOutro`, { maxLength: 120 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(fenceCount(chunk) % 2).toBe(0);
    expect(chunks[1]!.startsWith("```python\n")).toBe(true);
    expect(chunks[0]!.endsWith("\n```")).toBe(true);
  });

  it("respects a line cap", () => {
    const text = Array.from({ length: 50 }, (_, i) => `${i}`).join("\n");
    const chunks = chunkText(text, { maxLength: 2000, maxLines: 17 });
    expect(chunks.map((c) => c.split("\n").length)).toEqual([17, 17, 16]);
  });

  it("never splits a surrogate pair when breaking a long line", () => {
    const chunks = chunkText("😀".repeat(100), { maxLength: 41 });
    expect(chunks.join("")).toBe("😀".repeat(100));
    for (const chunk of chunks) expect(chunk).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it.each([
    { name: "UTF-16 limit (Telegram)", opts: { maxLength: 4096 } },
    { name: "code points and lines (Discord)", opts: { maxLength: 2000, maxLines: 17, measure: codePointLength } },
    { name: "a small limit", opts: { maxLength: 80 } },
  ])("property: random Markdown within the $name, text kept, fences balanced", ({ opts }) => {
    for (let seed = 1; seed <= 150; seed += 1) {
      const text = randomMarkdown(seededRandom(seed));
      const chunks = chunkText(text, opts);
      const measure = opts.measure ?? ((s: string) => s.length);
      for (const chunk of chunks) {
        expect(measure(chunk), `seed ${seed}`).toBeLessThanOrEqual(opts.maxLength);
        expect(chunk.split("\n").length, `seed ${seed}`).toBeLessThanOrEqual(opts.maxLines ?? Infinity);
        expect(fenceCount(chunk) % 2, `seed ${seed}: ${chunk}`).toBe(0);
      }
      expect(withoutFencesAndSpace(chunks.join("\n")), `seed ${seed}`).toBe(withoutFencesAndSpace(text));
    }
  });
});
