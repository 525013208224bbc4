/**
 * One WebChat WebSocket: `hello` binds it to a chat and answers with the history, `message` sends the
 * user's text. Bad frames get an error frame and the socket stays open. Frames of one socket are
 * handled in order, so a hello is bound before the message that follows it.
 */
import { randomUUID } from "node:crypto";
import type { RawData, WebSocket } from "ws";
import type { WebChatError } from "../../core/api-errors.js";
import { newErrorId } from "../../infra/http/errors.js";
import type { Logger } from "../../infra/log.js";
import type { HandleOutcome } from "../../core/types.js";
import { sendFrame, type ChatHub } from "./hub.js";
import {
  parseClientFrame,
  type ChatEntry,
  type HelloFrame,
  type MessageFrame,
  type WebInbound,
} from "./schema.js";

/** A user's message once shown; `handled` settles when the router is done with it. */
export interface Received {
  handled: Promise<HandleOutcome>;
}

export interface SocketDeps {
  hub: ChatHub;
  maxTextLength: number;
  log: Logger;
  history(chatId: string): Promise<ChatEntry[]>;
  /** Undefined when the channel is not running. */
  receive(input: WebInbound): Promise<Received | undefined>;
}

export function serveSocket(ws: WebSocket, deps: SocketDeps): void {
  let hello: HelloFrame | undefined;
  let queue = Promise.resolve();

  const fail = (error: WebChatError, message: string, messageId?: string): void =>
    sendFrame(ws, { type: "error", ...error, message, ...(messageId !== undefined ? { messageId } : {}) });
  const failUnexpectedly = (err: unknown, what: string, messageId?: string): void => {
    const errorId = newErrorId();
    deps.log.error({ err, errorId, chatId: hello?.chatId, messageId }, what);
    fail({ code: "internal_error", errorId }, `Something went wrong (error id ${errorId})`, messageId);
  };

  const onHello = async (frame: HelloFrame): Promise<void> => {
    hello = frame;
    deps.hub.join(frame.chatId, ws);
    sendFrame(ws, { type: "history", messages: await deps.history(frame.chatId) });
  };

  const onMessage = async (frame: MessageFrame): Promise<void> => {
    if (!hello) return fail({ code: "hello_required" }, "Send a hello frame with chatId and userId first", frame.messageId);
    if (frame.text.length > deps.maxTextLength) {
      const message = `The text has ${frame.text.length} characters; at most ${deps.maxTextLength} are accepted`;
      return fail({ code: "text_too_long", length: frame.text.length, max: deps.maxTextLength }, message, frame.messageId);
    }
    const { chatId, userId, userName, timeZone } = hello;
    const messageId = frame.messageId ?? randomUUID();
    const input = {
      chatId,
      userId,
      text: frame.text,
      messageId,
      ...(userName !== undefined ? { userName } : {}),
      ...(timeZone !== undefined ? { timeZone } : {}),
    };
    let received: Received | undefined;
    try {
      received = await deps.receive(input);
    } catch (err) {
      return failUnexpectedly(err, "web message could not be recorded", messageId);
    }
    if (!received) return fail({ code: "unavailable" }, "WebChat is not running", messageId);
    received.handled.then(
      (outcome) => deps.log.debug({ chatId, messageId, outcome }, "web message handled"),
      (err: unknown) => failUnexpectedly(err, "web message failed", messageId),
    );
  };

  const handle = async (raw: string): Promise<void> => {
    const parsed = parseClientFrame(raw);
    if (!parsed.ok) return fail(parsed.error, parsed.message);
    return parsed.frame.type === "hello" ? onHello(parsed.frame) : onMessage(parsed.frame);
  };

  ws.on("message", (data, isBinary) => {
    if (isBinary) return fail({ code: "bad_frame" }, "Frames must be JSON text, not binary");
    queue = queue
      .then(() => handle(textOf(data)))
      .catch((err: unknown) => failUnexpectedly(err, "web socket frame failed"));
  });
  ws.on("close", () => deps.hub.leave(ws));
  ws.on("error", (err) => deps.log.debug({ err, chatId: hello?.chatId }, "web socket error"));
}

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString("utf8");
}
