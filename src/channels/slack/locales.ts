/**
 * Each sender's Slack language (users.info with include_locale: "en-US", "zh-CN") as InboundMessage.locale: asked
 * once per person and kept for a day (the kit's UserLocales), so a message costs no call once its sender is known.
 * Without the users:read scope nobody has a locale (said once in the log) and the gateway answers in its default
 * language.
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../infra/log.js";
import type { Store } from "../../infra/store/types.js";
import { NO_LOCALE, UserLocales } from "../user-locales.js";
import { describeFailure } from "./api.js";

/** How long a person's locale holds before Slack is asked again: a changed language shows within a day. */
const LIFETIME_MS = 24 * 60 * 60_000;
/** After a failed lookup Slack is not asked again for this long, so a missing scope costs one call per person. */
const RETRY_MS = 60 * 60_000;

export class SlackLocales {
  private readonly known: UserLocales;
  /** Lookups under way: messages of one person arriving together make one call. */
  private readonly asking = new Map<string, Promise<string>>();
  private warned = false;

  constructor(
    private readonly client: WebClient,
    store: Store,
    private readonly log: Logger,
  ) {
    this.known = new UserLocales(store, "slack");
  }

  /** The person's BCP 47 locale, or undefined when Slack gives none or the lookup failed; never rejects. */
  async of(user: string): Promise<string | undefined> {
    try {
      let locale = await this.known.get(user);
      if (locale === undefined) {
        let asking = this.asking.get(user);
        if (asking === undefined) {
          asking = this.ask(user).finally(() => this.asking.delete(user));
          this.asking.set(user, asking);
        }
        locale = await asking;
      }
      return locale === NO_LOCALE ? undefined : locale;
    } catch (err) {
      this.log.warn({ err, user }, "could not keep a Slack user's language; the default language answers");
      return undefined;
    }
  }

  private async ask(user: string): Promise<string> {
    let locale = NO_LOCALE;
    let keepMs = LIFETIME_MS;
    try {
      const answer = await this.client.users.info({ user, include_locale: true });
      if (typeof answer.user?.locale === "string") locale = answer.user.locale;
    } catch (err) {
      if (!this.warned) this.log.warn({ user, reason: describeFailure(err) }, "could not read a Slack user's language (users.info, scope users:read); the default language answers");
      this.warned = true;
      keepMs = RETRY_MS;
    }
    await this.known.remember(user, locale, keepMs);
    return locale;
  }
}
