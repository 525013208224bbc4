/**
 * The browser pages' language (the console and WebChat): an explicit choice (remembered in localStorage), else the
 * first of the browser's languages that has a catalog, else English. A tag names a catalog by the gateway's own rule
 * (src/core/locales.ts).
 */
import { localeOf, type Locale } from "../../src/core/locales.js";

/** Each language's name in itself, for a language switch. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: "English", "zh-Hans": "简体中文" };

/** `asked` (a ?lang= value), when it names a catalog, is remembered under `storageKey` and wins. */
export function chooseLanguage(storageKey: string, asked?: string | null): Locale {
  const wanted = localeOf(asked);
  if (wanted) {
    rememberLanguage(storageKey, wanted);
    return wanted;
  }
  return [stored(storageKey), ...navigator.languages].map(localeOf).find((found) => found !== null) ?? "en";
}

export function rememberLanguage(storageKey: string, language: Locale): void {
  try {
    localStorage.setItem(storageKey, language);
  } catch {
    // Storage blocked (private mode, a sandboxed frame): the choice holds for this page only.
  }
}

function stored(storageKey: string): string | null {
  try {
    return localStorage.getItem(storageKey);
  } catch {
    return null;
  }
}
