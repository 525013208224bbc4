/**
 * The platforms' native command menus (Telegram's command list, Discord's slash commands), built from the same
 * command table that answers typed commands: a command marked `menu` shows there, and choosing it reaches the
 * router as the typed command. A platform refusing the menu is logged and does not stop the start.
 */
import type { ChatCommand } from "../core/commands.js";
import type { Channel, CommandMenu, MenuCommand } from "../core/types.js";
import type { Logger } from "../infra/log.js";

/** Telegram and Discord take at most 100 characters per description. */
const DESCRIPTION_LENGTH = 100;

export function commandMenuOf(commands: readonly ChatCommand[], owners: readonly string[], channelName: string): CommandMenu {
  const entries = (audience: "everyone" | "owners"): MenuCommand[] =>
    commands
      .filter((command) => command.menu === audience)
      .map((command) => ({ name: command.name, description: describe(command.summary), takesArgs: command.usage !== undefined }));
  const prefix = `${channelName}:`;
  return {
    everyone: entries("everyone"),
    owners: entries("owners"),
    ownerIds: owners.filter((owner) => owner.startsWith(prefix)).map((owner) => owner.slice(prefix.length)),
  };
}

/** Sets each channel's menu; failures are logged per channel, so it never rejects. */
export async function publishCommandMenus(
  channels: Iterable<Channel>,
  commands: readonly ChatCommand[],
  owners: readonly string[],
  log: Logger,
): Promise<void> {
  for (const channel of channels) {
    if (!channel.setCommandMenu) continue;
    try {
      await channel.setCommandMenu(commandMenuOf(commands, owners, channel.name));
    } catch (err) {
      log.warn({ err, channel: channel.name }, "could not register the command menu; typed commands still work");
    }
  }
}

function describe(summary: string): string {
  const text = summary.charAt(0).toUpperCase() + summary.slice(1);
  return text.length > DESCRIPTION_LENGTH ? `${text.slice(0, DESCRIPTION_LENGTH - 1)}…` : text;
}
