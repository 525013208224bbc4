/** The set-up's language: the flag, else the terminal's locale variables in the C library's order, else English. */
import { describe, expect, it } from "vitest";
import { LOCALES } from "../../src/core/locales.js";
import { SETUP_CHANNELS } from "../../src/setup/answers.js";
import { setupLocale, setupWords } from "../../src/setup/language.js";

describe("the set-up's language", () => {
  it("follows the terminal's locale: LC_ALL, then LC_MESSAGES, then LANG; C, POSIX and others are English", () => {
    expect(setupLocale(undefined, { LANG: "zh_CN.UTF-8" })).toBe("zh-Hans");
    expect(setupLocale(undefined, { LANG: "zh_TW.Big5" })).toBe("zh-Hans");
    expect(setupLocale(undefined, { LC_MESSAGES: "zh_CN.GB18030", LANG: "en_US.UTF-8" })).toBe("zh-Hans");
    expect(setupLocale(undefined, { LC_ALL: "en_GB.UTF-8", LC_MESSAGES: "zh_CN.UTF-8", LANG: "zh_CN.UTF-8" })).toBe("en");
    expect(setupLocale(undefined, { LC_ALL: "", LANG: "zh_SG.UTF-8@stroke" })).toBe("zh-Hans");
    expect(setupLocale(undefined, { LANG: "C.UTF-8" })).toBe("en");
    expect(setupLocale(undefined, { LC_ALL: "POSIX", LANG: "zh_CN.UTF-8" })).toBe("en");
    expect(setupLocale(undefined, { LANG: "de_DE.UTF-8" })).toBe("en");
    expect(setupLocale(undefined, {})).toBe("en");
  });

  it("--language wins over the environment, and a language it has no words for is an error in the terminal's", () => {
    expect(setupLocale("zh", { LANG: "en_US.UTF-8" })).toBe("zh-Hans");
    expect(setupLocale("en", { LC_ALL: "zh_CN.UTF-8" })).toBe("en");
    expect(setupLocale("zh-Hans", {})).toBe("zh-Hans");
    expect(() => setupLocale("de", { LANG: "C" })).toThrow('--language: "de" is not one of zh, en');
    expect(() => setupLocale("fr", { LANG: "zh_CN.UTF-8" })).toThrow('--language："fr" 不是 zh 或 en');
  });

  it("speaks the language picked", () => {
    expect(setupWords("zh-Hans")("setup.model.provider")).toBe("模型服务商");
    expect(setupWords("en")("setup.model.provider")).toBe("Model provider");
  });

  it("has, in every language, where each platform it offers keeps its credentials", () => {
    for (const locale of LOCALES) {
      const t = setupWords(locale);
      for (const { name } of SETUP_CHANNELS) expect(t(`setup.guides.${name}`), `${name} in ${locale}`).not.toBe(`setup.guides.${name}`);
    }
  });
});
