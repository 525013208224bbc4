/**
 * Each sender's Slack language (users.info with include_locale: "en-US", "zh-CN") as InboundMessage.locale: asked
 * once per person and kept in the store for a day (shared by replicas and restarts), read through a small
 * in-process cache, so a message costs no call once its sender is known. Without the users:read scope nobody has a
 * locale (said once in the log) and the gateway answers in its default language.
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../infra/log.js";
import { CachedNamespace } from "../../infra/store/cached-namespace.js";
import type { Store } from "../../infra/store/types.js";
import { describeFailure } from "./api.js";

/** How long a person's locale holds before Slack is asked again: a changed language shows within a day. */
const LIFETIME_MS = 24 * 60 * 60_000;
/** After a failed lookup Slack is not asked again for this long, so a missing scope costs one call per person. */
const RETRY_MS = 60 * 60_000;
const CACHE = { topic: "slack.locale-changed", ttlMs: 60_000, max: 2_000 };
/** Stored for a person Slack gave no locale for, so they are not asked on every message. */
const NONE = "";

export class SlackLocales {
  private readonly known: CachedNamespace<string>;
  /** Lookups under way: messages of one person arriving together make one call. */
  private readonly asking = new Map<string, Promise<string>>();
  private warned = false;

  constructor(
    private readonly client: WebClient,
    store: Store,
    private readonly log: Logger,
  ) {
    this.known = new CachedNamespace(store.namespace<string>("meta"), store.bus, CACHE);
  }

  /** The person's BCP 47 locale, or undefined when Slack gives none or the lookup failed; never rejects. */
  async of(user: string): Promise<string | undefined> {
    const key = `slack-locale:${user}`;
    try {
      let locale = await this.known.get(key);
      if (locale === undefined) {
        let asking = this.asking.get(key);
        if (asking === undefined) {
          asking = this.ask(key, user).finally(() => this.asking.delete(key));
          this.asking.set(key, asking);
        }
        locale = await asking;
      }
      return locale === NONE ? undefined : locale;
    } catch (err) {
      this.log.warn({ err, user }, "could not keep a Slack user's language; the default language answers");
      return undefined;
    }
  }

  private async ask(key: string, user: string): Promise<string> {
    let locale = NONE;
    let keepMs = LIFETIME_MS;
    try {
      const answer = await this.client.users.info({ user, include_locale: true });
      if (typeof answer.user?.locale === "string") locale = answer.user.locale;
    } catch (err) {
      if (!this.warned) this.log.warn({ user, reason: describeFailure(err) }, "could not read a Slack user's language (users.info, scope users:read); the default language answers");
      this.warned = true;
      keepMs = RETRY_MS;
    }
    await this.known.set(key, locale, keepMs);
    return locale;
  }
}
