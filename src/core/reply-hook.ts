/**
 * What a feature may add after an agent turn's text reply has gone out (a spoken rendition of it, for one): the
 * router calls each hook with the reply it sent, and a hook's failure never takes the text reply back.
 */
import type { Logger } from "pino";
import type { ToolPermissions } from "./tools.js";
import type { InboundMessage } from "./types.js";

export interface SentReply {
  /** The message the reply answers. */
  message: InboundMessage;
  sessionKey: string;
  /** The reply's text as the model wrote it (markdown). */
  text: string;
  workspaceDir: string;
  signal: AbortSignal;
  log: Logger;
  traceId: string;
  permissions?: ToolPermissions;
}

export type ReplyHook = (reply: SentReply) => Promise<void>;
