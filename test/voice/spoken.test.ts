/** What of a markdown reply is read aloud, and how a long one is cut into voice messages. */
import { describe, expect, it } from "vitest";
import { speechParts, spokenText } from "../../src/voice/spoken.js";

describe("spokenText", () => {
  it("reads prose, headings and list items; leaves out code blocks, tables, images and bare links", () => {
    const markdown = [
      "# Plan",
      "Run `npm test` first, then read [the guide](https://example.com/guide).",
      "```sh\nrm -rf /tmp/x\n```",
      "| col | val |\n|---|---|\n| a | 1 |",
      "- one\n- two",
      "Raw link: https://example.com/raw and <https://example.com/auto>",
      "![chart](chart.png)",
    ].join("\n\n");
    expect(spokenText(markdown)).toEqual({ text: ["Plan", "Run npm test first, then read the guide.", "one", "two", "Raw link: and"].join("\n\n"), whole: false });
  });

  it("is empty for a reply that is only code", () => {
    expect(spokenText("```js\nconsole.log(1)\n```")).toEqual({ text: "", whole: false });
  });

  it("is whole when nothing is left out: prose, lists and links written with words", () => {
    expect(spokenText("# Plan\n\nRead [the guide](https://example.com/g), then **rest**.\n\n- one")).toEqual({ text: "Plan\n\nRead the guide, then rest.\n\none", whole: true });
    for (const part of ["`inline` is read", "see https://example.com/raw", "![chart](c.png)", "| a |\n|---|\n| 1 |", "    indented code"]) {
      expect(spokenText(`Intro.\n\n${part}`).whole, part).toBe(part.startsWith("`inline`"));
    }
  });
});

describe("spokenText without emoji and symbols", () => {
  it("leaves out emoji with their skin tones, presentation selectors and ZWJ sequences", () => {
    expect(spokenText("Great job 🎉! I ❤️ the 👨‍👩‍👧‍👦 photo, 👍🏽 from the 👩🏽‍💻 team.").text).toBe("Great job! I the photo, from the team.");
    expect(spokenText("好的👍今天天气很好😊").text).toBe("好的 今天天气很好");
  });

  it("leaves out flags: regional-indicator pairs, tag sequences and the rainbow flag", () => {
    expect(spokenText("Trip: 🇯🇵 Tokyo, 🇫🇷 Paris, 🏴󠁧󠁢󠁳󠁣󠁴󠁿 Edinburgh, 🏳️‍🌈 parade").text).toBe("Trip: Tokyo, Paris, Edinburgh, parade");
  });

  it("leaves out arrows, bullets and dingbats; keeps numbers, currency, units and math signs", () => {
    expect(spokenText("★ Done ✓ ➜ next • Step 1 → Step 2 ▶ ■").text).toBe("Done next Step 1 Step 2");
    const prices = "It costs $5.99, €3,50, ¥100, £2, ₹80 or ₿0.001: 20°C, 50%, 3 × 4 = 12, x ≤ 2, ½ cup, ① first.";
    expect(spokenText(prices).text).toBe(prices);
    expect(spokenText("Press 1️⃣ then 2️⃣ 💰 $20").text).toBe("Press 1 then 2 $20");
  });

  it("a paragraph of emoji alone is not read; the reply is still whole", () => {
    expect(spokenText("Here you go.\n\n🎉🎉🎉")).toEqual({ text: "Here you go.", whole: true });
  });

  it("a symbol between words or numbers says something: the speech is not the whole reply, so the text goes too", () => {
    expect(spokenText("I ❤️ the photo.")).toEqual({ text: "I the photo.", whole: false });
    expect(spokenText("Tests ✅ 3 ❌ 1")).toEqual({ text: "Tests 3 1", whole: false });
    expect(spokenText("Step 1 → Step 2").whole).toBe(false);
    expect(spokenText("I ❤️ 🔥 it").whole).toBe(false);
    expect(spokenText("好的👍今天天气很好").whole).toBe(false);
  });

  it("decoration at the start or end of a line or sentence, and a keycap's marks, leave the reply whole", () => {
    for (const markdown of [
      "🎉 Congratulations!",
      "Great job 🎉! See you tomorrow.",
      "Done ✅. Next is lunch.",
      "Deployed 🚀\nNext is lunch.",
      "# ✅ Checklist\n\n- ✅ tests\n- ❌ docs",
      "Trip: 🇯🇵 Tokyo, 🇫🇷 Paris",
      "Press 1️⃣ then 2️⃣ 💰 $20",
    ]) {
      expect(spokenText(markdown).whole, markdown).toBe(true);
    }
  });
});

describe("speechParts", () => {
  it("keeps paragraphs together while they fit, then cuts at sentences and words", () => {
    expect(speechParts("Short one.\n\nShort two.", 100)).toEqual(["Short one. Short two."]);
    expect(speechParts("First sentence here. Second sentence here.", 25)).toEqual(["First sentence here.", "Second sentence here."]);
    const parts = speechParts(`${"word ".repeat(30).trim()}`, 40);
    expect(parts.every((p) => p.length <= 40)).toBe(true);
    expect(parts.join(" ")).toBe("word ".repeat(30).trim());
    expect(speechParts("x".repeat(25), 10)).toEqual(["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"]);
  });
});
