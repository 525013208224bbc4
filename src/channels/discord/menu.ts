/**
 * Slash commands: the command menu as Discord application commands, written with one bulk overwrite at start,
 * globally or per server (`channels.discord.slashCommands`). Every command takes one optional text option, the
 * words that would follow it when typed. Owners' commands are not registered: Discord shows commands to everyone.
 */
import { ApplicationCommandOptionType, ApplicationCommandType, Routes, type REST } from "discord.js";
import type { CommandMenu } from "../../core/types.js";
import { SLASH_TEXT_OPTION } from "./interactions.js";

export type SlashCommandScope = "global" | "guilds" | "off";

/** Discord's rules: 1-32 lower-case characters; descriptions 1-100 characters. */
const NAME = /^[-_a-z0-9]{1,32}$/;

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
      description: command.description,
      options: command.takesArgs
        ? [{ type: ApplicationCommandOptionType.String, name: SLASH_TEXT_OPTION, description: `What follows /${command.name}`, required: false }]
        : [],
    }));
  if (scope === "global") {
    await rest.put(Routes.applicationCommands(application.id), { body });
    return;
  }
  for (const guildId of application.guildIds) await rest.put(Routes.applicationGuildCommands(application.id, guildId), { body });
}
