/**
 * Media that users send, before and during a turn: each attachment is downloaded at most once into the session's
 * workspace (inbox/), within the configured size, and voice and audio are transcribed, so the model can answer a
 * voice message directly. What was learned is kept per message (media-records.ts) for the get_*_file tools.
 */
import { rm, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { formatBytes } from "../core/text.js";
import type { PreparedMedia, Transcription, TurnInput } from "../core/turn.js";
import type { Attachment, Channel, ChannelName, InboundMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";
import { SpeechToText } from "./stt.js";
import { INBOX_DIR } from "./janitor.js";
import type { MediaRecord, MediaRecords } from "./media-records.js";

export interface InboundMediaDeps {
  channelOf: (name: ChannelName) => Channel | undefined;
  records: MediaRecords;
  /** The transcriber, or why there is none. */
  stt: SpeechToText | { problem: string };
  maxDownloadBytes: number;
}

/** Where one attachment is being used: the session's workspace, and the turn's log and signal. */
export interface MediaScope {
  workspaceDir: string;
  log: Logger;
  signal: AbortSignal;
}

const SPOKEN: ReadonlySet<Attachment["kind"]> = new Set(["voice", "audio"]);

export function isSpoken(attachment: Attachment): boolean {
  return SPOKEN.has(attachment.kind);
}

/** A download that was refused or failed, with a reason fit for the model. */
export class MediaError extends Error {
  override readonly name = "MediaError";
}

export class InboundMedia {
  constructor(private readonly deps: InboundMediaDeps) {}

  /** Before the turn: remembers the message, and transcribes its voice and audio attachments. */
  async prepare(input: TurnInput, log: Logger): Promise<PreparedMedia> {
    const { message } = input;
    const record = await this.deps.records.of(message);
    // Kept so a later message can reply to this one's media; a message without any needs no record.
    if (record.attachments.length > 0) await this.deps.records.save(record);
    const scope: MediaScope = { workspaceDir: input.workspaceDir, log, signal: input.signal };
    const transcripts: Array<Transcription | undefined> = [];
    // One at a time: a message rarely has more than one voice note, and the STT service is spared a burst.
    for (const [index, attachment] of message.attachments.entries()) {
      transcripts.push(isSpoken(attachment) ? await this.transcribe(record, index, scope) : undefined);
    }
    return {
      download: (attachment) => this.localPath(record, message.attachments.indexOf(attachment), scope),
      transcripts,
    };
  }

  /** The record of the message with `messageId` in the turn's chat; the current message is always found. */
  async record(message: InboundMessage, messageId: string): Promise<MediaRecord | undefined> {
    if (messageId === message.platformMessageId) return this.deps.records.of(message);
    return this.deps.records.get(message.channel, message.chat.id, messageId);
  }

  /** The attachment's local path, downloading it into the workspace's inbox/ unless that was done already. */
  async localPath(record: MediaRecord, index: number, scope: MediaScope): Promise<string> {
    const attachment = record.attachments[index];
    if (!attachment) throw new MediaError(`Message ${record.messageId} has no attachment ${index + 1}`);
    if (attachment.path !== undefined && isInside(scope.workspaceDir, attachment.path) && (await exists(attachment.path))) {
      return attachment.path;
    }
    const limit = this.deps.maxDownloadBytes;
    if (attachment.size !== undefined && attachment.size > limit) throw tooLarge(attachment, attachment.size, limit);
    const channel = this.deps.channelOf(record.channel);
    if (!channel) throw new MediaError(`The ${record.channel} channel is not running, so the ${attachment.kind} cannot be downloaded`);
    let path: string;
    try {
      path = await channel.download(attachment, join(scope.workspaceDir, INBOX_DIR));
    } catch (err) {
      scope.log.warn({ err, messageId: record.messageId, attachment: index + 1 }, "downloading an attachment failed");
      throw new MediaError(`The ${attachment.kind} could not be downloaded: ${(err as Error).message}`);
    }
    const { size } = await stat(path);
    if (size > limit) {
      await rm(path, { force: true });
      throw tooLarge(attachment, size, limit);
    }
    attachment.path = path;
    attachment.size ??= size;
    await this.deps.records.save(record);
    return path;
  }

  /** The attachment's transcript: the one kept, or a new one (downloading first). Never throws. */
  async transcribe(record: MediaRecord, index: number, scope: MediaScope): Promise<Transcription> {
    const attachment = record.attachments[index];
    if (!attachment) return { failure: `message ${record.messageId} has no attachment ${index + 1}` };
    if (attachment.transcript !== undefined) return { text: attachment.transcript };
    const { stt } = this.deps;
    if (!(stt instanceof SpeechToText)) return { failure: stt.problem };
    try {
      const path = await this.localPath(record, index, scope);
      const text = await stt.transcribe(path, { ...(attachment.mime !== undefined ? { mime: attachment.mime } : {}), signal: scope.signal });
      attachment.transcript = text;
      await this.deps.records.save(record);
      return { text };
    } catch (err) {
      if (!(err instanceof MediaError)) scope.log.warn({ err, messageId: record.messageId, attachment: index + 1 }, "transcription failed");
      return { failure: (err as Error).message };
    }
  }
}

function tooLarge(attachment: Attachment, size: number, limit: number): MediaError {
  return new MediaError(`The ${attachment.kind} is ${formatBytes(size)}; attachments are downloaded up to ${formatBytes(limit)} (media.maxDownloadBytes)`);
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith("/");
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
