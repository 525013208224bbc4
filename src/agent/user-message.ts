/**
 * Turns an inbound chat message into the user message the model sees: the framed text, a description of each
 * attachment, and (for a vision model) the images themselves. The history keeps a text placeholder instead of
 * image bytes, so the store never holds media.
 */
import { readFile, stat } from "node:fs/promises";
import type { ImagePart, TextPart, UserModelMessage } from "ai";
import type { Attachment, InboundMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";
import { frame, quoteUntrusted } from "../core/framing.js";
import { formatBytes } from "../core/text.js";
import { ATTACHMENTS_HEADING, type EarlierChatMessage, type Transcription } from "../core/turn.js";

export interface UserMessageOptions {
  vision: boolean;
  download: ((attachment: Attachment) => Promise<string>) | undefined;
  log: Logger;
  /** Messages of the chat before this one that were not addressed to the bot, oldest first. */
  earlier?: readonly EarlierChatMessage[];
  /** By attachment position: the transcripts of voice and audio attachments (see PreparedMedia). */
  transcripts?: ReadonlyArray<Transcription | undefined>;
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
  const framed = [...frameEarlier(opts.earlier ?? []), frameMessage(message), ...frameTranscripts(message, opts.transcripts ?? [])];
  const text: TextPart = { type: "text", text: framed.join("\n") };
  const images = await Promise.all(
    message.attachments.map((attachment, index) => imagePart(attachment, index + 1, opts)),
  );
  const shown = images.flatMap((part, index) => (part ? [{ part, number: index + 1 }] : []));
  const placeholders: TextPart[] = shown.map(({ number }) => ({
    type: "text",
    text: `[attachment ${number} was shown to you as an image here; the image is not kept in the history]`,
  }));
  // Text alone goes as a string: the AI SDK validates every history message on every call, strings in half the time.
  if (shown.length === 0) return { forModel: { role: "user", content: text.text }, forHistory: { role: "user", content: text.text } };
  return {
    forModel: { role: "user", content: [text, ...shown.map(({ part }) => part)] },
    forHistory: { role: "user", content: [text, ...placeholders] },
  };
}

/** `message` with the gateway's own notes (turnNotes in prompt.ts) after its text; the history keeps them too. */
export function withNotes(message: UserModelMessage, notes: string): UserModelMessage {
  if (typeof message.content === "string") return { ...message, content: `${message.content}\n${notes}` };
  const [first, ...rest] = message.content;
  if (first?.type !== "text") return message;
  return { ...message, content: [{ ...first, text: `${first.text}\n${notes}` }, ...rest] };
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
      message_id: message.platformMessageId,
      sender: sender.name ?? sender.username ?? sender.id,
      sender_id: sender.id,
      time: message.receivedAt.toISOString(),
    }),
  );
  if (message.attachments.length > 0) {
    const lines = message.attachments.map(describeAttachment);
    pieces.push([ATTACHMENTS_HEADING, ...lines].join("\n"));
  }
  return pieces.join("\n");
}

/**
 * Each transcript in a frame of its own: what the sender said is as untrusted as what they type. A failure is
 * the gateway's own words, so it stays outside any frame.
 */
function frameTranscripts(message: InboundMessage, transcripts: ReadonlyArray<Transcription | undefined>): string[] {
  return message.attachments.flatMap((attachment, index) => {
    const transcription = transcripts[index];
    if (transcription === undefined) return [];
    const number = String(index + 1);
    if ("failure" in transcription) {
      return [`Attachment ${number} (${attachment.kind}) could not be transcribed: ${transcription.failure}. Tell the user if you need what it says.`];
    }
    const said = transcription.text === "" ? "(no speech recognized)" : transcription.text;
    return [frame("transcript", said, { attachment: number, kind: attachment.kind, source: "speech-to-text; may contain mistakes" })];
  });
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
