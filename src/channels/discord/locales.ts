/**
 * The client language Discord tells only on interactions (slash commands, button presses), remembered per user for
 * their plain messages, which carry none. Lookups finish in arrival order, so no message overtakes an earlier one.
 */
import type { InboundMessage } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { UserLocales } from "../user-locales.js";

/** How long a language told by an interaction holds without another one: a month (each interaction writes it again). */
const LIFETIME_MS = 30 * 24 * 60 * 60_000;

export class DiscordLocales {
  private readonly known: UserLocales;
  private arrivals: Promise<unknown> = Promise.resolve();

  constructor(
    store: Store,
    private readonly log: Logger,
  ) {
    this.known = new UserLocales(store, "discord");
  }

  /** Remembers the language an interaction carried; never rejects. */
  async note(userId: string, locale: string | undefined): Promise<void> {
    if (locale === undefined) return;
    await this.known.remember(userId, locale, LIFETIME_MS).catch((err: unknown) => this.log.warn({ err, userId }, "could not remember a Discord user's language"));
  }

  /** The message with its sender's remembered language, if any; never rejects. */
  withLocale(message: InboundMessage): Promise<InboundMessage> {
    const ready = this.arrivals.then(async () => {
      const locale = await this.known.get(message.sender.id).catch((err: unknown) => {
        this.log.warn({ err, userId: message.sender.id }, "could not read a Discord user's language; the default language answers");
        return undefined;
      });
      return locale ? { ...message, locale } : message;
    });
    this.arrivals = ready;
    return ready;
  }
}
