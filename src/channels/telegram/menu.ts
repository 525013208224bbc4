/**
 * The bot's command list in Telegram clients (the "/" menu), set with setMyCommands per scope: everyone's
 * commands in all private chats and in all group chats, and in each owner's private chat theirs as well. Each scope
 * gets one list per language (`language_code`), which Telegram shows to users whose client speaks it, and one without
 * a language, in the default's, for everyone else. The default's own language is set too, so a list left by an
 * earlier default cannot stay behind.
 */
import type { Api } from "grammy";
import type { BotCommand, BotCommandScope, LanguageCode } from "grammy/types";
import type { CommandMenu, MenuCommand } from "../../core/types.js";

/** Telegram's limits: 1-32 characters of a-z, 0-9 and _; descriptions 1-256 characters; at most 100 commands. */
const NAME = /^[a-z0-9_]{1,32}$/;
const MAX_COMMANDS = 100;
/** setMyCommands takes a two-letter ISO 639-1 code. */
const LANGUAGE_CODE = /^[a-z]{2}$/;

export async function setCommandMenu(api: Api, menu: CommandMenu): Promise<void> {
  const scopes: Array<{ scope: BotCommandScope; commands: MenuCommand[] }> = [
    { scope: { type: "all_private_chats" }, commands: menu.everyone },
    { scope: { type: "all_group_chats" }, commands: menu.everyone },
    // A user's private chat has the user's id.
    ...menu.ownerIds.map((ownerId) => ({ scope: { type: "chat" as const, chat_id: ownerId }, commands: [...menu.everyone, ...menu.owners] })),
  ];
  const translated = new Set([...menu.everyone, ...menu.owners].flatMap((command) => Object.keys(command.description.translations)));
  for (const { scope, commands } of scopes) {
    await api.setMyCommands(botCommands(commands, null), { scope });
    for (const locale of [menu.locale, ...translated]) {
      const languageCode = languageCodeOf(locale);
      if (languageCode !== null) await api.setMyCommands(botCommands(commands, locale === menu.locale ? null : locale), { scope, language_code: languageCode });
    }
  }
}

/** Telegram's code for a catalog language: its primary subtag ("zh-Hans" -> "zh"), or null when it has none. */
function languageCodeOf(locale: string): LanguageCode | null {
  const code = locale.split("-")[0]!.toLowerCase();
  return LANGUAGE_CODE.test(code) ? (code as LanguageCode) : null;
}

/** The commands with their descriptions in `locale`, or in the default language for null. */
function botCommands(commands: readonly MenuCommand[], locale: string | null): BotCommand[] {
  return commands
    .filter((command) => NAME.test(command.name))
    .slice(0, MAX_COMMANDS)
    .map((command) => ({ command: command.name, description: (locale === null ? undefined : command.description.translations[locale]) ?? command.description.text }));
}
