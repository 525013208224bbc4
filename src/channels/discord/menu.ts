/**
 * Slash commands: the command menu as Discord application commands, written with one bulk overwrite at start,
 * globally or per server (`channels.discord.slashCommands`). Every command takes one optional text option, the
 * words that would follow it when typed. Descriptions carry `description_localizations` for the client languages of
 * each other catalog language (zh-CN and zh-TW for Chinese). Owners' commands are not registered: Discord shows
 * commands to everyone.
 */
import { ApplicationCommandOptionType, ApplicationCommandType, Locale, Routes, type REST } from "discord.js";
import type { CommandMenu, MenuText } from "../../core/types.js";
import { SLASH_TEXT_OPTION } from "./interactions.js";

export type SlashCommandScope = "global" | "guilds" | "off";

/** Discord's rules: 1-32 lower-case characters; descriptions 1-100 characters. */
const NAME = /^[-_a-z0-9]{1,32}$/;
const DISCORD_LOCALES: readonly string[] = Object.values(Locale);

export async function registerSlashCommands(
  rest: REST,
  application: { id: string; guildIds: string[] },
  menu: CommandMenu,
  scope: SlashCommandScope,
): Promise<void> {
  if (scope === "off") return;
  const body = menu.everyone
    .filter((command) => NAME.test(command.name))
    .map((command) => ({
      type: ApplicationCommandType.ChatInput,
      name: command.name,
      ...described(command.description),
      options: command.argument
        ? [{ type: ApplicationCommandOptionType.String, name: SLASH_TEXT_OPTION, ...described(command.argument), required: false }]
        : [],
    }));
  if (scope === "global") {
    await rest.put(Routes.applicationCommands(application.id), { body });
    return;
  }
  for (const guildId of application.guildIds) await rest.put(Routes.applicationGuildCommands(application.id, guildId), { body });
}

function described(text: MenuText): { description: string; description_localizations?: Record<string, string> } {
  const localizations = Object.fromEntries(Object.entries(text.translations).flatMap(([locale, translation]) => discordLocalesOf(locale).map((code) => [code, translation])));
  return Object.keys(localizations).length > 0 ? { description: text.text, description_localizations: localizations } : { description: text.text };
}

/** Discord's client languages for a catalog language: those of its primary subtag ("zh-Hans" -> zh-CN, zh-TW). */
function discordLocalesOf(locale: string): string[] {
  const language = locale.split("-")[0]!.toLowerCase();
  return DISCORD_LOCALES.filter((code) => code.split("-")[0]!.toLowerCase() === language);
}
