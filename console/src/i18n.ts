/**
 * The console's words (i18next over console/i18n) and its dates and numbers (Intl), in the language chosen with
 * the header's switch, else the browser's.
 */
import en from "../i18n/en.json";
import type { Locale } from "../../src/core/locales.js";
import { chooseLanguage, rememberLanguage } from "../i18n/language";
import { createTranslator } from "../i18n/translator";
import zhHans from "../i18n/zh-Hans.json";

const KEY = "switchboard.console.lang";
const engine = createTranslator({ en, "zh-Hans": zhHans }, chooseLanguage(KEY));

export const language = (): Locale => engine.language as Locale;

export const t = (key: string, values?: Record<string, unknown>): string => engine.t(key, values ?? {});

/** Switches and remembers; the caller re-renders. */
export function setLanguage(next: Locale): void {
  rememberLanguage(KEY, next);
  void engine.changeLanguage(next);
  showLanguage();
}

/** The document's own language and title follow the catalog's. */
export function showLanguage(): void {
  document.documentElement.lang = language();
  document.title = t("app.title");
}

export const when = (ms: number | null | undefined): string => (ms ? new Date(ms).toLocaleString(language()) : "—");

export const num = (n: number, digits = 0): string =>
  n.toLocaleString(language(), { minimumFractionDigits: digits, maximumFractionDigits: digits });
