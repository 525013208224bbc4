/** Slash commands the router answers itself, without the model: they work even when no LLM is configured. */

export const COMMANDS = {
  help: "show this help",
  new: "start a new conversation (forget the history of this chat)",
  reset: "same as /new",
  status: "show the model, this session's size and whether a turn is running",
  stop: "cancel the running turn and drop queued messages",
} as const;

export type CommandName = keyof typeof COMMANDS;

export interface ParsedCommand {
  name: CommandName;
  args: string;
}

/**
 * Recognizes `/name args` and `/name@botname args`. Unknown commands are not ours: they return null and
 * go to the model as ordinary text (a skill or a later handler may know them).
 */
export function parseCommand(text: string): ParsedCommand | null {
  const match = /^\/([a-z]+)(?:@\S+)?(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return null;
  const name = match[1]!.toLowerCase();
  if (!Object.hasOwn(COMMANDS, name)) return null;
  return { name: name as CommandName, args: (match[2] ?? "").trim() };
}

export function helpText(botName: string): string {
  const lines = Object.entries(COMMANDS).map(([name, what]) => `/${name} - ${what}`);
  return `${botName} commands:\n${lines.join("\n")}\n\nAnything else is a message to the assistant.`;
}
