/** The browser pages' i18next over their bundled catalogs; no browser API, so unit tests use it as the pages do. */
import i18next, { type i18n } from "i18next";
import { LOCALES, type Locale } from "../../src/core/locales.js";

export type Catalog = { [key: string]: string | Catalog };

/** An i18next instance over `catalogs`, ready at once (the catalogs are bundled, nothing loads). */
export function createTranslator(catalogs: Record<Locale, Catalog>, language: Locale): i18n {
  const engine = i18next.createInstance();
  void engine.init({
    resources: Object.fromEntries(LOCALES.map((name) => [name, { translation: catalogs[name] }])),
    lng: language,
    fallbackLng: "en",
    initAsync: false,
    // The pages put texts into the DOM as text (Preact, textContent), never as HTML.
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  return engine;
}
