/** The redactor catches each configured secret as it is and in the encodings code would smuggle it out in. */
import { describe, expect, it } from "vitest";
import { collectSecrets, configSchema } from "../../src/config.js";
import { redactSecrets, redactText, REDACTED, secretSpans } from "../../src/infra/config/secrets.js";
import { seededRandom } from "../helpers/seeded-random.js";

import { createLogger } from "../../src/infra/log.js";

const TOKEN = "123456:AAH-telegram_token/with+odd=chars";
const secrets = collectSecrets(configSchema.parse({ llm: { apiKey: "sk-live-0123456789abcdef" }, channels: { telegram: { token: TOKEN } } }));

/** An environ dump with the secret at a given offset, as a script reading /proc/<pid>/environ would get it. */
const environ = (pad: number) => Buffer.from(`${"P".repeat(pad)}HOME=/root\0TELEGRAM_BOT_TOKEN=${TOKEN}\0LANG=C\0`);

describe("redacting encoded secrets", () => {
  it.each([0, 1, 2])("catches base64 and base64url of a dump with the secret at alignment %i", (pad) => {
    const b64 = environ(pad).toString("base64");
    const b64url = environ(pad).toString("base64url");
    for (const text of [b64, b64url, `output: ${b64} end`]) {
      const redacted = redactText(text, secrets);
      expect(redacted).toContain(REDACTED);
      // What is left cannot be decoded back into the token.
      expect(Buffer.from(redacted.replaceAll(REDACTED, ""), "base64").toString()).not.toContain("telegram_token");
    }
  });

  it("catches base64 wrapped at 76 columns, as the base64 tool prints it", () => {
    const wrapped = environ(5).toString("base64").replace(/.{76}/g, "$&\n");
    const redacted = redactText(wrapped, secrets);
    expect(redacted).toContain(REDACTED);
    expect(Buffer.from(redacted.replaceAll(REDACTED, "").replaceAll("\n", ""), "base64").toString()).not.toContain("telegram_token");
  });

  it.each([
    ["hex", Buffer.from(TOKEN).toString("hex")],
    ["upper-case hex", Buffer.from(TOKEN).toString("hex").toUpperCase()],
    ["reversed", [...TOKEN].reverse().join("")],
    ["plain", TOKEN],
  ])("catches the %s form", (_name, form) => {
    expect(redactText(`leak: ${form}!`, secrets)).toBe(`leak: ${REDACTED}!`);
  });

  it("catches a secret with line breaks anywhere inside, and keeps the line breaks around it", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const breaks = ["\n", "\r\n", "\n\n", "\r\n\r\n", "\r"];
    for (let round = 0; round < 200; round++) {
      const secret = next() < 0.5 ? TOKEN : "sk-live-0123456789abcdef";
      const chars = [...secret];
      const wrapped = chars.map((ch, i) => (i > 0 && next() < 0.2 ? breaks[Math.floor(next() * breaks.length)]! : "") + ch).join("");
      const before = `line ${round}${next() < 0.5 ? "\r\n" : " "}`;
      const after = `${next() < 0.5 ? "\n" : " "}end\r`;
      expect(redactText(`${before}${wrapped}${after}`, secrets)).toBe(`${before}${REDACTED}${after}`);
    }
  });

  it("finds what a character-by-character search that skips line breaks finds, on random text", () => {
    // Leftmost match first, and at one place the first form in the list, as a regular expression's alternation.
    const reference = (text: string, forms: string[]): Array<[number, number]> => {
      const plain = forms.map((form) => form.replace(/[\r\n]/g, "")).filter((form) => form !== "");
      const spans: Array<[number, number]> = [];
      for (let start = 0; start < text.length; start++) {
        if (/[\r\n]/.test(text[start]!)) continue;
        for (const form of plain) {
          let matched = 0;
          let at = start;
          let last = start;
          for (; at < text.length && matched < form.length; at++) {
            if (/[\r\n]/.test(text[at]!)) continue;
            if (text[at] !== form[matched]) break;
            matched += 1;
            last = at;
          }
          if (matched === form.length) {
            spans.push([start, last + 1]);
            start = last;
            break;
          }
        }
      }
      return spans;
    };
    const random = seededRandom(11);
    const alphabet = ["a", "b", "c", "\n", "\r", "\r\n", "x", "\uD83D", "\uDE00", "."];
    const sets = [["abca", "ab"], ["aba"], ["a.b", "bc"], ["ab\r", "ba"], ["a\nb", "c\r\nc"], ["\uD83D\uDE00a"], ["aaa", "aa"], ["\rab", "b\r"], []];
    for (let round = 0; round < 20_000; round++) {
      const forms = sets[Math.floor(random() * sets.length)]!;
      const text = Array.from({ length: Math.floor(random() * 10) }, () => alphabet[Math.floor(random() * alphabet.length)]!).join("");
      expect(secretSpans(text, forms), JSON.stringify({ text, forms })).toEqual(reference(text, forms));
    }
  });

  it("catches a secret read with a carriage return at its end (a file with Windows line endings) however it is printed", () => {
    const withReturn = collectSecrets(configSchema.parse({ llm: { apiKey: "hunter2secret\r" } }));
    for (const text of ["token: hunter2secret\r\nnext", "token: hunter2secret\nnext", "token: hunter2secret"]) {
      expect(redactText(text, withReturn)).not.toContain("hunter2secret");
    }
  });

  it("leaves ordinary text and short look-alikes alone", () => {
    const text = "The token is stored safely. base64 of hello is aGVsbG8= and 123456 is a number.";
    expect(redactText(text, secrets)).toBe(text);
  });

  it("redacts encoded forms inside tool results and log lines", () => {
    const hex = Buffer.from("sk-live-0123456789abcdef").toString("hex");
    expect(redactSecrets({ stdout: `k=${hex}`, nested: [{ v: environ(1).toString("base64") }] }, secrets)).toEqual({
      stdout: `k=${REDACTED}`,
      nested: [{ v: expect.stringContaining(REDACTED) }],
    });
    const lines: string[] = [];
    const log = createLogger({ level: "info", secrets, destination: { write: (line: string) => void lines.push(line) } });
    log.info({ out: [...TOKEN].reverse().join("") }, `saw ${hex}`);
    expect(lines.join("")).not.toContain(hex);
    expect(lines.join("")).not.toContain([...TOKEN].reverse().join(""));
  });
});
