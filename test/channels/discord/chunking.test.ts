/**
 * Property test of Discord's message splitting: random Markdown (code blocks with languages, long lines, emoji,
 * CJK) never yields a message over 2000 characters or 17 lines, keeps every code block balanced, and loses no
 * text. A sample also goes through sendText to the fake Discord, checking what actually arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_MESSAGE_LENGTH, MAX_MESSAGE_LINES, splitMessage } from "../../../src/channels/discord/send.js";
import { codePointLength } from "../../../src/core/text.js";
import { startFakeDiscord, type FakeDiscord } from "../../fakes/discord/index.js";
import { createChannel } from "./helpers.js";
import { seededRandom } from "../../helpers/seeded-random.js";

const PIECES = [
  "word ", "**bold** ", "`inline` ", "emoji 😀👍🏽 ", "中文 ", "\n", "\n\n", "- item\n", "> quote\n",
  "\n```ts\nconst x = 1;\n", "\n```python\nprint('hi')\n", "\n```\n",
];
/** Lines longer than a message. Rare: the shared chunker spends ~15 ms on each cut of such a line. */
const LONG_PIECES = ["x".repeat(2100), "long line ".repeat(220), "😀".repeat(2100)];

function randomMarkdown(next: () => number): string {
  const pick = (items: string[]) => items[Math.floor(next() * items.length)]!;
  const parts: string[] = [];
  const count = Math.floor(next() * 400);
  for (let i = 0; i < count; i += 1) parts.push(next() < 0.001 ? pick(LONG_PIECES) : pick(PIECES));
  return parts.join("");
}

const isFence = (line: string) => /^\s*```/.test(line);
const fences = (chunk: string) => chunk.split("\n").filter(isFence).length;
const content = (text: string) => text.split("\n").filter((l) => !isFence(l)).join("").replace(/\s+/g, "");

function expectValid(chunks: string[], original: string, label: string): void {
  for (const chunk of chunks) {
    expect(codePointLength(chunk), label).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH);
    expect(chunk.split("\n").length, label).toBeLessThanOrEqual(MAX_MESSAGE_LINES);
    expect(fences(chunk) % 2, `${label}: ${chunk.slice(0, 200)}`).toBe(0);
  }
  expect(content(chunks.join("\n")), label).toBe(content(original));
}

describe("splitting replies for Discord", () => {
  it("property: 150 random Markdown replies split within 2000 characters and 17 lines, fences balanced, text kept", () => {
    for (let seed = 1; seed <= 150; seed += 1) {
      const text = randomMarkdown(seededRandom(seed));
      expectValid(splitMessage(text), text, `seed ${seed}`);
    }
  });

  describe("through the fake Discord", () => {
    let fake: FakeDiscord;
    beforeAll(async () => {
      fake = await startFakeDiscord();
    });
    afterAll(() => fake.close());

    it("delivers what splitMessage promises", async () => {
      const { channel } = createChannel(fake);
      for (let seed = 1000; seed < 1005; seed += 1) {
        fake.messages.length = 0;
        const text = randomMarkdown(seededRandom(seed));
        const sent = await channel.sendText({ channel: "discord", chatId: fake.world.general.id }, text);
        expect(sent).toHaveLength(fake.messages.length);
        expectValid(fake.messages.map((m) => String(m.payload.content)), text, `seed ${seed}`);
      }
      await channel.stop();
    });
  });
});
