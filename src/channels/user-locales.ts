/**
 * People's languages as their platform tells them (Slack's users.info, Discord's interactions), kept in the store
 * for a bounded time (shared by replicas, kept across restarts) and read through a small in-process cache, so a
 * message costs neither a store read nor a platform call once its sender is known.
 */
import { CachedNamespace } from "../infra/store/cached-namespace.js";
import type { Store } from "../infra/store/types.js";

const CACHE = { topic: "channels.locale-changed", ttlMs: 60_000, max: 2_000 };
/** Kept for a person the platform gave no language for, so it is not asked again on every message. */
export const NO_LOCALE = "";

export class UserLocales {
  private readonly known: CachedNamespace<string>;

  constructor(
    store: Store,
    private readonly platform: string,
  ) {
    this.known = new CachedNamespace(store.namespace<string>("meta"), store.bus, CACHE);
  }

  /** The language kept for `user`: a BCP 47 tag, NO_LOCALE when the platform has none, undefined when none is kept. */
  get(user: string): Promise<string | undefined> {
    return this.known.get(this.keyOf(user));
  }

  /** Keeps `locale` for `ttlMs` from now: told again, its time starts over. */
  async remember(user: string, locale: string, ttlMs: number): Promise<void> {
    await this.known.set(this.keyOf(user), locale, ttlMs);
  }

  private keyOf(user: string): string {
    return `locale:${this.platform}:${user}`;
  }
}
