import { describe, expect, it } from "vitest";
import { GrowingRedaction } from "../../src/agent/growing-redaction.js";
import { secretForms } from "../../src/infra/config/secrets.js";
import { seededRandom } from "../helpers/seeded-random.js";
import { wholeTextView } from "../helpers/whole-text-redaction.js";

/** Longest first, as the gateway collects them. */
const secrets = [...new Set([...secretForms("sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"), ...secretForms("pass-word-9"), ...secretForms("9999")])].sort(
  (a, b) => b.length - a.length,
);

/** Chat text with secrets (as they are, reversed, encoded, wrapped by line breaks, cut short) in random places. */
function textWithSecrets(next: () => number): string {
  const pieces = ["The answer is ", "here: ", "\n\n- ", "ok ", "sk-proj-", "pass-", "99", "\r\n"];
  let text = "";
  while (text.length < 600) {
    const roll = next();
    if (roll < 0.15) {
      const secret = secrets[Math.floor(next() * secrets.length)]!;
      text += next() < 0.3 ? [...secret].join(["\n", "\r\n", "\n\n", "\r\n\r\n", "\r"][Math.floor(next() * 5)]!) : secret;
    } else if (roll < 0.25) {
      const secret = secrets[Math.floor(next() * secrets.length)]!;
      const start = secret.slice(0, 1 + Math.floor(next() * (secret.length - 1)));
      text += next() < 0.3 ? [...start].join("\n") : start;
    } else {
      text += pieces[Math.floor(next() * pieces.length)]!;
    }
  }
  return text;
}

describe("GrowingRedaction", () => {
  it("shows after every delta what redacting the whole text shows", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const next = seededRandom(seed);
      const text = textWithSecrets(next);
      const growing = new GrowingRedaction(secrets);
      let sent = 0;
      while (sent < text.length) {
        const size = 1 + Math.floor(next() * 12);
        const shown = growing.append(text.slice(sent, sent + size));
        sent += size;
        expect(shown, `seed ${seed} after ${sent} characters`).toBe(wholeTextView(text.slice(0, sent), secrets));
      }
    }
  });

  it("never shows a secret's first characters while it streams in, and starts over on reset", () => {
    const growing = new GrowingRedaction(secrets);
    const shown = [..."Your key: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 done"].map((ch) => growing.append(ch));
    for (const text of shown) expect(text).not.toMatch(/sk-|proj/);
    expect(shown.at(-1)).toBe("Your key: [REDACTED] done");
    growing.reset();
    expect(growing.append("fresh")).toBe("fresh");
  });

  it("holds back a secret's start with line breaks inside, as a tool wrapping its output writes it", () => {
    const growing = new GrowingRedaction(secrets);
    const shown = [..."Your key:\nsk-pr\noj-abcdefgh\r\nijklmnopqrstuvwxyz0123456789\ndone"].map((ch) => growing.append(ch));
    for (const text of shown) expect(text).not.toMatch(/sk-|pr\s*oj/);
    expect(shown.at(-1)).toBe("Your key:\n[REDACTED]\ndone");
  });

  it("holds back a secret that begins with another, also once the shorter one matched", () => {
    const nested = [...new Set([...secretForms("my-hunter2x-key"), ...secretForms("hunter2x")])].sort((a, b) => b.length - a.length);
    const growing = new GrowingRedaction(nested);
    const shown = [..."id my-hunter2x-key ok"].map((ch) => growing.append(ch));
    for (const text of shown.slice(0, -4)) expect(text).not.toMatch(/my|REDACTED/);
    expect(shown.at(-1)).toBe("id [REDACTED] ok");
  });

  it("ignores an empty secret instead of matching it everywhere", () => {
    const growing = new GrowingRedaction(["", "abcd1234"]);
    expect(growing.append("key abcd1234 ok")).toBe("key [REDACTED] ok");
  });

  it("passes text through when there are no secrets", () => {
    const growing = new GrowingRedaction([]);
    growing.append("sk-proj-");
    expect(growing.append("abc")).toBe("sk-proj-abc");
  });
});
