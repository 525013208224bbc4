/**
 * The contract of a slash command: answered by the gateway itself, without the model. The router owns the core
 * ones (/help, /new, /status, /stop); other parts (access control, the scheduler) contribute theirs.
 */
import type { Logger } from "pino";
import type { InboundMessage } from "./types.js";

export interface CommandContext {
  message: InboundMessage;
  sessionKey: string;
  log: Logger;
  traceId: string;
}

export interface ChatCommand {
  /** Lower-case, without the slash. */
  name: string;
  aliases?: string[];
  /** One line for /help, e.g. "start a new conversation". */
  summary: string;
  /** Usage shown in /help after the name, e.g. "<code>". */
  usage?: string;
  /** Answers the command; the text is sent as the reply. */
  run(args: string, ctx: CommandContext): Promise<string>;
}
