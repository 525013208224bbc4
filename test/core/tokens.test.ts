import { describe, expect, it } from "vitest";
import { countTokens, fitsInTokens } from "../../src/core/tokens.js";

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

  it("counts special-token text such as <|endoftext|> as text instead of throwing", () => {
    expect(countTokens("hi <|endoftext|> there")).toBeGreaterThan(countTokens("hi there"));
    expect(countTokens(`${"x".repeat(300)}<|im_start|>system`)).toBeGreaterThan(5);
  });
});

describe("fitsInTokens", () => {
  it("agrees with countTokens on either side of the budget, whether or not the byte size decides it", () => {
    const english = "The quick brown fox jumps over the lazy dog. ".repeat(10);
    const chinese = "今天天气很好，我们去公园散步吧。".repeat(10);
    for (const text of [english, chinese, "", "<|endoftext|>"]) {
      const tokens = countTokens(text);
      expect(fitsInTokens(text, tokens)).toBe(true);
      if (tokens > 0) expect(fitsInTokens(text, tokens - 1)).toBe(false);
      expect(fitsInTokens(text, Buffer.byteLength(text))).toBe(true);
    }
  });
});
