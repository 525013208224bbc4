/**
 * The platforms' native command menus (Telegram's command list, Discord's slash commands), built from the same
 * command table that answers typed commands: a command marked `menu` shows there, and choosing it reaches the
 * router as the typed command. Each text comes in every catalog language; the platform shows a person the one of
 * their client. A platform refusing the menu is logged and does not stop the start.
 */
import type { ChatCommand } from "../core/commands.js";
import type { Translate } from "../core/i18n.js";
import { LOCALES } from "../core/locales.js";
import type { Channel, CommandMenu, MenuCommand, MenuText } from "../core/types.js";
import type { Translator } from "../infra/i18n/index.js";
import type { Logger } from "../infra/log.js";
import { summaryOf } from "./commands.js";

/** Discord takes at most 100 characters per description (Telegram 256). */
const DESCRIPTION_LENGTH = 100;

export function commandMenuOf(commands: readonly ChatCommand[], owners: readonly string[], channelName: string, translator: Translator): CommandMenu {
  const locale = translator.defaultLocale;
  const others = LOCALES.filter((other) => other !== locale);
  const textOf = (write: (t: Translate) => string): MenuText => ({
    text: describe(write(translator.speech(locale).t)),
    translations: Object.fromEntries(others.map((other) => [other, describe(write(translator.speech(other).t))])),
  });
  const entries = (audience: "everyone" | "owners"): MenuCommand[] =>
    commands
      .filter((command) => command.menu === audience)
      .map((command) => ({
        name: command.name,
        description: textOf((t) => summaryOf(command, t)),
        ...(command.usage !== undefined ? { argument: textOf((t) => t("menu.argument", { command: command.name })) } : {}),
      }));
  const prefix = `${channelName}:`;
  return {
    locale,
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
  translator: Translator,
  log: Logger,
): Promise<void> {
  for (const channel of channels) {
    if (!channel.setCommandMenu) continue;
    try {
      await channel.setCommandMenu(commandMenuOf(commands, owners, channel.name, translator));
    } catch (err) {
      log.warn({ err, channel: channel.name }, "could not register the command menu; typed commands still work");
    }
  }
}

/**
 * Capitalized and cut to the limit in UTF-16 units (the stricter count: a platform counting code points takes it
 * too), never between the two halves of a character outside the BMP.
 */
function describe(summary: string): string {
  const text = summary.charAt(0).toUpperCase() + summary.slice(1);
  if (text.length <= DESCRIPTION_LENGTH) return text;
  const cut = /[\uD800-\uDBFF]/.test(text.charAt(DESCRIPTION_LENGTH - 2)) ? DESCRIPTION_LENGTH - 2 : DESCRIPTION_LENGTH - 1;
  return `${text.slice(0, cut)}…`;
}
