/**
 * WebChat's words (i18next over webchat/i18n) and its times and numbers (Intl): in the language of `?lang=`
 * (remembered), else the remembered one, else the browser's.
 */
import { WEBCHAT_ERRORS } from "../../src/core/api-errors.js";
import { chooseLanguage } from "../i18n/language";
import { serverErrorText } from "../i18n/server-errors";
import { createTranslator } from "../i18n/translator";
import en from "./i18n/en.json";
import zhHans from "./i18n/zh-Hans.json";

const engine = createTranslator(
  { en, "zh-Hans": zhHans },
  chooseLanguage("switchboard.webchat.lang", new URLSearchParams(location.search).get("lang")),
);

export const language = engine.language;

export const t = (key: string, values?: Record<string, unknown>): string => engine.t(key, values ?? {});

/** An error frame (`{ type: "error", code, message, ...values }`) in the page's words. */
export const errorText = (frame: { code?: unknown; message?: unknown }): string =>
  serverErrorText(t, WEBCHAT_ERRORS, frame.code, typeof frame.message === "string" ? frame.message : "", frame);

/** The clock time of an ISO instant, as the language writes it. */
export const time = (at: string): string => new Date(at).toLocaleTimeString(language, { hour: "2-digit", minute: "2-digit" });

export function size(bytes: number): string {
  const digits = { maximumFractionDigits: 1 };
  if (bytes < 1024) return t("size.b", { n: bytes.toLocaleString(language) });
  if (bytes < 1024 * 1024) return t("size.kb", { n: (bytes / 1024).toLocaleString(language, digits) });
  return t("size.mb", { n: (bytes / 1024 / 1024).toLocaleString(language, digits) });
}

/** Fills the page's fixed texts: data-i18n (text), data-i18n-placeholder and data-i18n-label (aria-label). */
export function localize(root: Document): void {
  root.documentElement.lang = language;
  for (const el of root.querySelectorAll<HTMLElement>("[data-i18n]")) el.textContent = t(el.dataset.i18n!);
  for (const el of root.querySelectorAll<HTMLElement>("[data-i18n-placeholder]")) el.setAttribute("placeholder", t(el.dataset.i18nPlaceholder!));
  for (const el of root.querySelectorAll<HTMLElement>("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel!));
}
