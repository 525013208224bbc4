/**
 * The languages with a catalog, and the rule from a language tag to one of them. The gateway (its chat words, the
 * config, the set-up) and the browser pages (the console, WebChat) share this one rule, so a tag means the same
 * language everywhere; nothing here may import anything, since the pages' bundles include it.
 */

export const LOCALES = ["en", "zh-Hans"] as const;
export type Locale = (typeof LOCALES)[number];

/**
 * The catalog language for a BCP 47 tag from a person, a platform or a browser ("zh-CN", "zh-hans", "en-US",
 * "zh_TW"), or null when none fits. Chinese in any script gets Simplified Chinese, the one Chinese catalog.
 */
export function localeOf(tag: string | undefined | null): Locale | null {
  if (!tag) return null;
  const language = tag.trim().toLowerCase().replace(/_/g, "-").split("-")[0];
  if (language === "zh") return "zh-Hans";
  if (language === "en") return "en";
  return null;
}
