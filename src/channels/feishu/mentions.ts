/**
 * Feishu writes mentions into message text as placeholders (`@_user_1`, `@_all`) and lists who they are beside
 * the content. This resolves them: people become `@Name`, everyone becomes `@all`, and the bot's own mention is
 * removed, since it only says the message is addressed to the bot.
 */

export interface MentionEntry {
  key: string;
  name?: string | null | undefined;
  id?: { open_id?: string | null | undefined } | null | undefined;
}

export class Mentions {
  private readonly byKey = new Map<string, MentionEntry>();
  readonly mentionsBot: boolean;

  constructor(
    entries: readonly MentionEntry[],
    private readonly botOpenId: string,
  ) {
    for (const entry of entries) this.byKey.set(entry.key, entry);
    this.mentionsBot = entries.some((entry) => this.isBot(entry));
  }

  /** `text` with every placeholder resolved. */
  resolve(text: string): string {
    return text
      .replace(/@_all\b|@_user_\d+ ?/g, (placeholder) => {
        const key = placeholder.trimEnd();
        const trailing = placeholder.slice(key.length);
        const rendered = this.render(key);
        return rendered === "" ? "" : rendered + trailing;
      })
      .trim();
  }

  /** One mention: `@Name`, `@all`, "" for the bot, or the placeholder itself when Feishu did not list it. */
  render(key: string): string {
    if (key === "@_all") return "@all";
    const entry = this.byKey.get(key);
    if (!entry) return key;
    if (this.isBot(entry)) return "";
    return entry.name ? `@${entry.name}` : key;
  }

  private isBot(entry: MentionEntry): boolean {
    return this.botOpenId !== "" && entry.id?.open_id === this.botOpenId;
  }
}
