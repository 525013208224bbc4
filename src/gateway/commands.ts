/**
 * Slash commands: answered by the gateway itself, without the model, so they work even when no LLM is
 * configured. The router owns the core ones (/help, /new, /status, /stop: core-commands.ts); other parts add theirs
 * (access control, the scheduler) through RouterDeps.commands.
 */
import type { ChatCommand } from "../core/commands.js";
import type { Translate } from "../core/i18n.js";

export interface ParsedCommand {
  command: ChatCommand;
  args: string;
}

/** Indexes commands by name and alias; a name taken twice is a programming error. */
export function commandTable(commands: readonly ChatCommand[]): Map<string, ChatCommand> {
  const table = new Map<string, ChatCommand>();
  for (const command of commands) {
    for (const name of [command.name, ...(command.aliases ?? [])]) {
      if (table.has(name)) throw new Error(`slash command /${name} is defined twice`);
      table.set(name, command);
    }
  }
  return table;
}

/**
 * Recognizes `/name args` and `/name@botname args`. Unknown commands are not ours: they return null and go to
 * the model as ordinary text.
 */
export function parseCommand(text: string, table: ReadonlyMap<string, ChatCommand>): ParsedCommand | null {
  const match = /^\/([a-z_]+)(?:@\S+)?(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return null;
  const command = table.get(match[1]!.toLowerCase());
  return command ? { command, args: (match[2] ?? "").trim() } : null;
}

/** The command's one-line summary in the reader's language; its own English one when no catalog has it. */
export function summaryOf(command: ChatCommand, t: Translate): string {
  return t(`commands.${command.name}.summary`, { defaultValue: command.summary });
}

export function helpText(botName: string, commands: readonly ChatCommand[], t: Translate): string {
  const lines = commands.map((c) => {
    const names = [c.name, ...(c.aliases ?? [])].map((n) => `/${n}`).join(", ");
    return `${names}${c.usage ? ` ${c.usage}` : ""} - ${summaryOf(c, t)}`;
  });
  return `${t("help.title", { bot: botName })}\n${lines.join("\n")}\n\n${t("help.footer")}`;
}
