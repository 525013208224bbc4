/** Markdown to Slack mrkdwn, the 4,000-character cut, and Slack's message text as a person reads it. */
import { describe, expect, it } from "vitest";
import { markdownToMrkdwn, mrkdwnChunks } from "../../../src/channels/slack/format.js";
import { plainText } from "../../../src/channels/slack/normalize.js";
import { blocksOf } from "../../../src/channels/slack/send.js";

describe("Markdown to mrkdwn", () => {
  it.each([
    ["**bold** and _em_ and *em* and ~~gone~~", "*bold* and _em_ and _em_ and ~gone~"],
    ["# Title\n\ntext", "*Title*\n\ntext"],
    ["- one\n- two\n  - nested", "• one\n• two\n    • nested"],
    ["1. first\n2. second", "1. first\n2. second"],
    ["> quoted\n> more", "> quoted\n> more"],
    ["[docs](https://example.com/?a=1&b=2) and ![pic](https://example.com/p.png)", "<https://example.com/?a=1&amp;b=2|docs> and <https://example.com/p.png|pic>"],
    ["[javascript](javascript:alert(1))", "[javascript](javascript:alert(1))"],
    ["`a < b` and\n```ts\nif (a && b) {}\n```", "`a &lt; b` and\n```\nif (a &amp;&amp; b) {}\n```"],
    ["1 < 2 & 3 > 2", "1 &lt; 2 &amp; 3 &gt; 2"],
  ])("%j", (markdown, mrkdwn) => {
    expect(markdownToMrkdwn(markdown)).toBe(mrkdwn);
  });

  it("leaves nothing that Slack reads as a mention or a broadcast", () => {
    const rendered = markdownToMrkdwn("<!everyone> <!here|here> <@U0123> <!subteam^S1|@team> [x](https://a.example/<!channel>|y)");
    expect(rendered).not.toMatch(/<[!@#]/);
    expect(rendered).toContain("&lt;!everyone&gt;");
  });

  it("cuts long text into parts of at most 4,000 characters, escapes counted, code blocks closed and reopened", () => {
    const text = [`${"x & y ".repeat(500)}`, "```", ...Array.from({ length: 300 }, (_, i) => `line ${i} <tag>`), "```", "end"].join("\n");
    const parts = mrkdwnChunks(text);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(4_000);
    for (const part of parts.filter((p) => p.includes("line 1"))) expect(part.split("```").length % 2).toBe(1);
    expect(parts.join("\n")).toContain("line 299 &lt;tag&gt;");
  });

  it("puts the text in sections of at most 3,000 characters when buttons go under it", () => {
    const blocks = blocksOf("a".repeat(2_500) + "\n" + "b".repeat(1_400), [[{ label: "Go", actionId: "go_1", style: "primary" }, { label: "Later", actionId: "later_1", style: "secondary" }]]);
    expect(blocks.map((b) => b.type)).toEqual(["section", "section", "actions"]);
    expect(blocks[2]).toEqual({
      type: "actions",
      elements: [
        { type: "button", action_id: "go_1", text: { type: "plain_text", text: "Go", emoji: true }, style: "primary" },
        { type: "button", action_id: "later_1", text: { type: "plain_text", text: "Later", emoji: true } },
      ],
    });
  });
});

describe("Slack text as a person reads it", () => {
  it("resolves Slack's markup and removes the bot's own mention", () => {
    expect(plainText("<@UBOT> hi <@U123> in <#C1|general>, <!here> <https://a.example|site> <mailto:x@y.z> &lt;3 &amp; more", "UBOT")).toBe(
      "hi @U123 in #general, @here site (https://a.example) mailto:x@y.z <3 & more",
    );
  });
});
