/**
 * What a feature may do with an agent turn's reply: add to it after its text went out (a spoken rendition), or
 * send it in another form instead of the text (spoken, for a person who asked for no text). The router calls each
 * hook with the reply; a hook's failure never takes the text reply back, nor keeps it from going.
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
  /** The language the person reads the gateway's words in (a BCP 47 tag such as "zh-Hans"). */
  locale: string;
  workspaceDir: string;
  signal: AbortSignal;
  log: Logger;
  traceId: string;
  permissions?: ToolPermissions;
}

export type ReplyHook = (reply: SentReply) => Promise<void>;

/** True when the reply went out in another form and its text must not; false leaves the text to go as usual. */
export type ReplyReplacement = (reply: SentReply) => Promise<boolean>;
