/**
 * The bot's command list in Telegram clients (the "/" menu), set with setMyCommands per scope: everyone's
 * commands in all private chats and in all group chats, and in each owner's private chat theirs as well.
 */
import type { Api } from "grammy";
import type { BotCommand } from "grammy/types";
import type { CommandMenu, MenuCommand } from "../../core/types.js";

/** Telegram's limits: 1-32 characters of a-z, 0-9 and _; descriptions 1-256 characters; at most 100 commands. */
const NAME = /^[a-z0-9_]{1,32}$/;
const MAX_COMMANDS = 100;

export async function setCommandMenu(api: Api, menu: CommandMenu): Promise<void> {
  const everyone = botCommands(menu.everyone);
  await api.setMyCommands(everyone, { scope: { type: "all_private_chats" } });
  await api.setMyCommands(everyone, { scope: { type: "all_group_chats" } });
  const owners = botCommands([...menu.everyone, ...menu.owners]);
  // A user's private chat has the user's id.
  for (const ownerId of menu.ownerIds) await api.setMyCommands(owners, { scope: { type: "chat", chat_id: ownerId } });
}

function botCommands(commands: readonly MenuCommand[]): BotCommand[] {
  return commands
    .filter((command) => NAME.test(command.name))
    .slice(0, MAX_COMMANDS)
    .map((command) => ({ command: command.name, description: command.description }));
}
