import { describe, expect, it } from "vitest";
import { countTokens } from "../../src/core/tokens.js";

describe("countTokens", () => {
  it("counts English at about four characters a token", () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(20);
    expect(countTokens(text)).toBeGreaterThan(text.length / 6);
    expect(countTokens(text)).toBeLessThan(text.length / 3);
  });

  it("counts Chinese at about a token a character, not a quarter of one", () => {
    const text = "今天天气很好，我们去公园散步吧。这是一个测试句子。".repeat(20);
    expect(countTokens(text)).toBeGreaterThan(text.length * 0.7);
  });

  it("gives the same count for the same text, cached or not", () => {
    const text = `${"缓存 cache ".repeat(100)}end`;
    const first = countTokens(text);
    expect(countTokens(text)).toBe(first);
    expect(countTokens(`${text}!`)).toBeGreaterThan(first - 1);
    expect(countTokens("")).toBe(0);
  });
});
