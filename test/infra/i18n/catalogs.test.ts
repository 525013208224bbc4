/**
 * The catalogs (the gateway's chat texts, the console's and WebChat's): every language has every key with the same
 * placeholders, every server error code the pages show has its text with the values the server sends, and tags
 * map to the right catalog.
 */
import { describe, expect, it } from "vitest";
import consoleEn from "../../../console/i18n/en.json" with { type: "json" };
import consoleZh from "../../../console/i18n/zh-Hans.json" with { type: "json" };
import webchatEn from "../../../console/webchat/i18n/en.json" with { type: "json" };
import webchatZh from "../../../console/webchat/i18n/zh-Hans.json" with { type: "json" };
import { CONSOLE_ERRORS, WEBCHAT_ERRORS, type ErrorTable } from "../../../src/core/api-errors.js";
import { LOCALES, localeOf } from "../../../src/core/locales.js";
import { CATALOGS, Translator } from "../../../src/infra/i18n/index.js";

type Catalog = { [key: string]: string | Catalog };

/** Flattened keys, plural forms (_one, _other...) folded into their base key, with the placeholders of each. */
function entries(catalog: Catalog, prefix = ""): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const [key, value] of Object.entries(catalog)) {
    const path = `${prefix}${key}`;
    if (typeof value !== "string") {
      for (const [inner, names] of entries(value, `${path}.`)) found.set(inner, names);
      continue;
    }
    const base = path.replace(/_(zero|one|two|few|many|other)$/, "");
    const names = found.get(base) ?? new Set<string>();
    for (const match of value.matchAll(/\{\{\s*(\w+)\s*\}\}/g)) names.add(match[1]!);
    found.set(base, names);
  }
  return found;
}

/** Each set of catalogs by language; the browser pages' have the same languages as the chat's. */
const SETS: Array<[string, Record<string, Catalog>]> = [
  ["chat", CATALOGS as Record<string, Catalog>],
  ["console", { en: consoleEn, "zh-Hans": consoleZh }],
  ["webchat", { en: webchatEn, "zh-Hans": webchatZh }],
];

describe.each(SETS)("%s catalogs", (_set, catalogs) => {
  const all = LOCALES.map((locale) => [locale, entries(catalogs[locale]!)] as const);
  const keys = new Set(all.flatMap(([, found]) => [...found.keys()]));

  it.each(LOCALES)("%s has every key another catalog has, with the same placeholders", (locale) => {
    const own = all.find(([name]) => name === locale)![1];
    const missing = [...keys].filter((key) => !own.has(key));
    expect(missing, `keys missing in ${locale}`).toEqual([]);
    for (const [other, theirs] of all) {
      for (const [key, names] of theirs) {
        expect([...own.get(key)!].sort(), `placeholders of ${key} in ${locale} vs ${other}`).toEqual([...names].sort());
      }
    }
  });

  it("has no language beyond the chat's", () => {
    expect(Object.keys(catalogs).sort()).toEqual([...LOCALES].sort());
  });
});

/** The pages' texts for the server's error codes: one per code, with exactly the values the code carries. */
describe.each([
  ["console", CONSOLE_ERRORS, consoleEn],
  ["webchat", WEBCHAT_ERRORS, webchatEn],
] as Array<[string, ErrorTable, Catalog]>)("%s server error texts", (_set, table, en) => {
  const texts = entries(en);
  it.each(Object.entries(table))("%s has a text with its values", (code, names) => {
    expect([...(texts.get(`errors.server.${code}`) ?? ["(no text)"])].sort()).toEqual([...names].sort());
  });

  it("has no text for a code the server does not send", () => {
    const codes = [...texts.keys()].filter((key) => key.startsWith("errors.server.")).map((key) => key.slice("errors.server.".length));
    expect(codes.sort()).toEqual(Object.keys(table).sort());
  });
});

describe("message catalogs", () => {
  it("the check itself notices a missing key and a differing placeholder", () => {
    const en = entries({ a: "x {{n}}", b: { c_one: "one", c_other: "{{count}}" } });
    const zh = entries({ a: "x {{m}}", b: { c_other: "{{count}}" } });
    expect([...en.keys()]).toEqual(["a", "b.c"]);
    expect([...zh.get("a")!]).not.toEqual([...en.get("a")!]);
    expect(entries({ a: "x" }).has("b.c")).toBe(false);
  });

  it("maps platform and user tags to a catalog, or to none", () => {
    expect(["zh-CN", "zh-hans", "zh_TW", "ZH", "zh-Hant-HK"].map(localeOf)).toEqual(Array(5).fill("zh-Hans"));
    expect(["en", "en-US", "en-GB"].map(localeOf)).toEqual(["en", "en", "en"]);
    expect(["de", "", "fr-FR", undefined].map(localeOf)).toEqual([null, null, null, null]);
  });

  it("picks the first usable tag, falls back to the default, plural forms and dates follow the language", () => {
    const translator = new Translator("zh-CN");
    expect(translator.speech("de", "en-US").locale).toBe("en");
    expect(translator.speech(undefined, "fr").locale).toBe("zh-Hans");
    const en = translator.speech("en");
    expect(en.t("session.dropped", { count: 1 })).toBe("Dropped 1 queued message.");
    expect(en.t("session.dropped", { count: 3 })).toBe("Dropped 3 queued messages.");
    expect(translator.speech().t("session.dropped", { count: 3 })).toBe("已丢弃 3 条排队的消息。");
    const instant = Date.UTC(2026, 2, 28, 8, 0);
    expect(translator.speech().time(instant, "Asia/Shanghai")).toBe("2026年3月28日星期六 16:00 (Asia/Shanghai)");
    expect(en.time(instant, "Asia/Shanghai")).toBe("Saturday 2026-03-28 16:00 (Asia/Shanghai, GMT+08:00)");
    expect(() => new Translator("de")).toThrow(/i18n.default: "de" is not one of en, zh-Hans/);
  });
});
