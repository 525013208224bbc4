/**
 * The port of the gateway's own words: a translator bound to one person's language. Catalogs and the library
 * behind them live in infra/i18n; parts that make texts receive a `Speech` and never pick a language themselves.
 */

/** Values put into a message's `{{placeholders}}`; `count` also picks the plural form. */
export type MessageValues = Record<string, string | number>;

/** The text of a catalog key in one language. */
export type Translate = (key: string, values?: MessageValues) => string;

export interface Speech {
  /** The language's canonical tag, e.g. "en" or "zh-Hans". */
  locale: string;
  t: Translate;
  /** A moment as this person reads it, in the given IANA zone. */
  time(instant: number, zone: string): string;
}
