/**
 * The contract of a slash command: answered by the gateway itself, without the model. The router owns the core
 * ones (/help, /new, /status, /stop); other parts (access control, the scheduler) contribute theirs.
 */
import type { Logger } from "pino";
import type { Speech } from "./i18n.js";
import type { ButtonSpec, InboundMessage } from "./types.js";

export interface CommandContext {
  message: InboundMessage;
  sessionKey: string;
  /** The agent that answers this chat (what a reminder set here runs with); absent: the default agent. */
  agentId?: string;
  log: Logger;
  traceId: string;
  /** The sender's language: every fixed text of the answer comes from `speech.t`. */
  speech: Speech;
}

export interface ChatCommand {
  /** Lower-case, without the slash. */
  name: string;
  aliases?: string[];
  /**
   * One line for /help, e.g. "start a new conversation": the English text, used when the catalogs have no
   * `commands.<name>.summary`.
   */
  summary: string;
  /** Usage shown in /help after the name, e.g. "<code>". */
  usage?: string;
  /**
   * Where the command shows in the platforms' native menus: to everyone, in the owners' private chats only, or
   * not at all (absent; it still works typed).
   */
  menu?: "everyone" | "owners";
  /** Answers the command; the text (with buttons for the sender, where given) is sent as the reply. */
  run(args: string, ctx: CommandContext): Promise<string | CommandReply>;
}

/** A command's answer with buttons that only the sender of the command may press. */
export interface CommandReply {
  text: string;
  buttons?: ButtonSpec[][];
}
