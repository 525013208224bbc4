/**
 * Which language each person reads the gateway's own words in: their choice (/language), else what their
 * platform reports (InboundMessage.locale), else i18n.default. Choices are cached like the time zones (a change
 * made on another replica is seen within 30 s at most), so a message costs no store read once its sender is known.
 */
import type { ChatCommand } from "../core/commands.js";
import type { Speech } from "../core/i18n.js";
import type { InboundMessage } from "../core/types.js";
import { localeOf } from "../core/locales.js";
import type { Translator } from "../infra/i18n/index.js";
import { CachedNamespace } from "../infra/store/cached-namespace.js";
import type { Store } from "../infra/store/types.js";

const CACHE = { topic: "i18n.language-changed", ttlMs: 30_000, max: 2_000 };

type Person = Pick<InboundMessage, "channel" | "sender">;

export class LanguagePreferences {
  private readonly chosen: CachedNamespace<string>;

  constructor(
    store: Store,
    readonly translator: Translator,
  ) {
    const ns = store.namespace<string>("languages");
    this.chosen = new CachedNamespace(ns, store.bus, CACHE);
  }

  async speechOf(message: Pick<InboundMessage, "channel" | "sender" | "locale">): Promise<Speech> {
    return this.translator.speech(await this.chosen.get(keyOf(message)), message.locale);
  }

  /** Stores the person's choice; false when `tag` names no catalog language. */
  async choose(person: Person, tag: string): Promise<Speech | null> {
    const locale = localeOf(tag);
    if (locale === null) return null;
    await this.chosen.set(keyOf(person), locale);
    return this.translator.speech(locale);
  }
}

const keyOf = (person: Person): string => `language:${person.channel}:${person.sender.id}`;

export function languageCommand(languages: LanguagePreferences): ChatCommand {
  return {
    name: "language",
    aliases: ["lang"],
    summary: "show or set the language I answer commands in: /language zh, /language en",
    usage: "[en|zh]",
    menu: "everyone",
    run: async (args, ctx) => {
      const code = args.trim();
      if (code === "") return ctx.speech.t("language.current");
      const chosen = await languages.choose(ctx.message, code);
      return chosen ? chosen.t("language.set") : ctx.speech.t("language.unknown", { code: code.slice(0, 20) });
    },
  };
}
