/**
 * Turns an inbound chat message into the user message the model sees: the framed text, a description of each
 * attachment, and (for a vision model) the images themselves. The history keeps a text placeholder instead of
 * image bytes, so the store never holds media.
 */
import { readFile, stat } from "node:fs/promises";
import type { ImagePart, TextPart, UserModelMessage } from "ai";
import type { Attachment, InboundMessage } from "../channels/types.js";
import type { Logger } from "../log.js";
import { frame, quoteUntrusted } from "./framing.js";

export interface UserMessageOptions {
  vision: boolean;
  download: ((attachment: Attachment) => Promise<string>) | undefined;
  log: Logger;
  /** Messages of the chat before this one that were not addressed to the bot, oldest first. */
  earlier?: readonly EarlierChatMessage[];
}

/** A group message the bot was not asked to answer, kept as context for the next message that is. */
export interface EarlierChatMessage {
  senderId: string;
  senderName?: string;
  text: string;
  /** ISO time the message was received. */
  sentAt: string;
}

export interface UserTurnMessage {
  /** Sent to the model in this turn, images included. */
  forModel: UserModelMessage;
  /** Saved in the history: the same text, images replaced by placeholders. */
  forHistory: UserModelMessage;
}

/** Larger images are described instead of sent; providers reject them anyway. */
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export async function buildUserMessage(message: InboundMessage, opts: UserMessageOptions): Promise<UserTurnMessage> {
  const text: TextPart = { type: "text", text: [...frameEarlier(opts.earlier ?? []), frameMessage(message)].join("\n") };
  const images = await Promise.all(
    message.attachments.map((attachment, index) => imagePart(attachment, index + 1, opts)),
  );
  const shown = images.flatMap((part, index) => (part ? [{ part, number: index + 1 }] : []));
  const placeholders: TextPart[] = shown.map(({ number }) => ({
    type: "text",
    text: `[attachment ${number} was shown to you as an image here; the image is not kept in the history]`,
  }));
  return {
    forModel: { role: "user", content: [text, ...shown.map(({ part }) => part)] },
    forHistory: { role: "user", content: [text, ...placeholders] },
  };
}

/** The quoted reply (if any), the message itself and its attachment list, each untrusted piece framed. */
function frameMessage(message: InboundMessage): string {
  const { sender, replyTo } = message;
  const pieces: string[] = [];
  if (replyTo?.text) {
    pieces.push(frame("quote", replyTo.text, { from: replyTo.fromBot ? "you (the assistant)" : "another message" }));
  }
  pieces.push(
    frame("message", message.text, {
      channel: message.channel,
      sender: sender.name ?? sender.username ?? sender.id,
      sender_id: sender.id,
      time: message.receivedAt.toISOString(),
    }),
  );
  if (message.attachments.length > 0) {
    const lines = message.attachments.map(describeAttachment);
    pieces.push(["Attachments (names are chosen by the sender):", ...lines].join("\n"));
  }
  return pieces.join("\n");
}

/** Each earlier message in a frame of its own, so none can pass itself off as another sender's. */
function frameEarlier(earlier: readonly EarlierChatMessage[]): string[] {
  if (earlier.length === 0) return [];
  const intro = "Earlier messages in this chat, not addressed to you (context only, oldest first):";
  const frames = earlier.map((m) =>
    frame("context", m.text, { sender: m.senderName ?? m.senderId, sender_id: m.senderId, time: m.sentAt }),
  );
  return [intro, ...frames];
}

function describeAttachment(attachment: Attachment, index: number): string {
  const details = [
    attachment.name !== undefined ? `name ${quoteUntrusted(attachment.name)}` : undefined,
    attachment.mime !== undefined ? quoteUntrusted(attachment.mime) : undefined,
    attachment.size !== undefined ? formatBytes(attachment.size) : undefined,
    attachment.durationSec !== undefined ? `${attachment.durationSec} s` : undefined,
  ].filter((detail) => detail !== undefined);
  return `${index + 1}. ${attachment.kind}${details.length > 0 ? `: ${details.join(", ")}` : ""}`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The attachment as an image part when it is an image the model can see, else undefined (it stays described). */
async function imagePart(
  attachment: Attachment,
  number: number,
  opts: UserMessageOptions,
): Promise<ImagePart | undefined> {
  if (!opts.vision || attachment.kind !== "image" || !opts.download) return undefined;
  try {
    const path = await opts.download(attachment);
    const { size } = await stat(path);
    if (size > MAX_IMAGE_BYTES) {
      opts.log.info({ attachment: number, size }, "image attachment too large to show to the model");
      return undefined;
    }
    const image = await readFile(path);
    return { type: "image", image, ...(attachment.mime !== undefined ? { mediaType: attachment.mime } : {}) };
  } catch (err) {
    opts.log.warn({ err, attachment: number }, "could not download an image attachment; it is only described");
    return undefined;
  }
}
