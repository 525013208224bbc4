/**
 * The set-up's own language: `--language`, else the terminal's locale as the C library reads it (LC_ALL, then
 * LC_MESSAGES, then LANG: the first one set decides, "C" and "POSIX" being English), else English.
 */
import type { Translate } from "../core/i18n.js";
import { localeOf, type Locale } from "../core/locales.js";
import { Translator } from "../infra/i18n/index.js";

const LOCALE_VARIABLES = ["LC_ALL", "LC_MESSAGES", "LANG"] as const;

/** The language for `flag` (zh, en, or a tag of either) or, without one, for the environment's locale. */
export function setupLocale(flag: string | undefined, env: NodeJS.ProcessEnv): Locale {
  const set = LOCALE_VARIABLES.map((name) => env[name]).find((value) => value !== undefined && value !== "");
  // "zh_CN.UTF-8", "en_US@euro": the language is before the codeset and the modifier.
  const terminal = localeOf(set?.split(/[.@]/)[0]) ?? "en";
  if (flag === undefined) return terminal;
  const chosen = localeOf(flag);
  if (chosen === null) throw new Error(setupWords(terminal)("setup.scripted.badLanguage", { value: flag }));
  return chosen;
}

/** The set-up's words in `locale`. */
export function setupWords(locale: Locale): Translate {
  return new Translator(locale).speech().t;
}
