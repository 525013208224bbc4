/**
 * The gateway's own words in each person's language: i18next over the JSON catalogs beside this file (bundled
 * with the code, so a build needs no copy step). English and Simplified Chinese are complete; a key missing in one
 * falls back to English, and the catalogs' test fails on it.
 */
import i18next, { type i18n } from "i18next";
import type { MessageValues, Speech } from "../../core/i18n.js";
import { LOCALES, localeOf, type Locale } from "../../core/locales.js";
import { describeLocalTime } from "../../core/time.js";
import en from "./en.json" with { type: "json" };
import zhHans from "./zh-Hans.json" with { type: "json" };

/** One catalog per language of core/locales.ts (the tag → language rule lives there). */
export const CATALOGS = { en, "zh-Hans": zhHans } as const satisfies Record<Locale, object>;

export class Translator {
  private readonly engine: i18n;
  private readonly speeches = new Map<Locale, Speech>();
  readonly defaultLocale: Locale;

  constructor(defaultTag: string) {
    const fallback = localeOf(defaultTag);
    if (fallback === null) throw new Error(`i18n.default: "${defaultTag}" is not one of ${LOCALES.join(", ")}`);
    this.defaultLocale = fallback;
    this.engine = i18next.createInstance();
    void this.engine.init({
      resources: Object.fromEntries(LOCALES.map((locale) => [locale, { translation: CATALOGS[locale] }])),
      lng: fallback,
      fallbackLng: "en",
      initAsync: false,
      // Texts go to chat platforms as plain text, not into HTML.
      interpolation: { escapeValue: false },
      returnNull: false,
    });
  }

  /** The words for the first of `tags` that names a catalog language, else the configured default's. */
  speech(...tags: (string | undefined | null)[]): Speech {
    const locale = tags.map(localeOf).find((found) => found !== null) ?? this.defaultLocale;
    let speech = this.speeches.get(locale);
    if (speech === undefined) {
      const fixed = this.engine.getFixedT(locale);
      const dates = new Map<string, Intl.DateTimeFormat>();
      speech = {
        locale,
        t: (key: string, values?: MessageValues) => fixed(key, values ?? {}),
        time: (instant, zone) => {
          // English keeps the form the prompt and the scheduler's tools use.
          if (locale === "en") return describeLocalTime(new Date(instant), zone);
          let format = dates.get(zone);
          if (format === undefined) {
            format = new Intl.DateTimeFormat(locale, { dateStyle: "full", timeStyle: "short", timeZone: zone });
            dates.set(zone, format);
          }
          return `${format.format(instant)} (${zone})`;
        },
      };
      this.speeches.set(locale, speech);
    }
    return speech;
  }
}

/** English with no configuration: for tests and for parts built without a gateway. */
export const ENGLISH: Speech = new Translator("en").speech();
