/**
 * An in-process Channel for the IM Channel tests: it keeps every file it is asked to send (the bytes as they were
 * at the time, since the sender deletes its staging copy), serves downloads from a table of refs, and can be told
 * to refuse, hang or drop the connection for a kind of file.
 */
import { SendError } from "../../src/core/send-error.js";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type {
  Attachment,
  Channel,
  ChannelCapabilities,
  ChannelName,
  ChannelStatus,
  OutboundFile,
  OutboundTarget,
  SendTextOptions,
  SentMessage,
  VoiceFormat,
} from "../../src/core/types.js";

export interface ReceivedFile {
  to: OutboundTarget;
  file: OutboundFile;
  bytes: Buffer;
  replyTo: string | undefined;
  messageId: string;
}

/** What the channel does with a send of a kind of file. */
export type SendBehaviour = "accept" | "refuse" | "hang" | "drop";

/** What each real platform plays as a voice message, so a test channel named after one behaves like it. */
const VOICE_FORMATS: Record<string, VoiceFormat> = { telegram: "ogg-opus", feishu: "ogg-opus", discord: "audio-file" };

export class TestChannel implements Channel {
  readonly capabilities: ChannelCapabilities;
  readonly received: ReceivedFile[] = [];
  readonly downloads: Attachment[] = [];
  /** By OutboundFile kind; unlisted kinds are accepted. */
  readonly behaviour = new Map<OutboundFile["kind"], SendBehaviour>();
  /** Download contents by attachment ref. */
  readonly files = new Map<string, Buffer>();
  private counter = 0;

  constructor(
    readonly name: ChannelName = "telegram",
    capabilities: Partial<ChannelCapabilities> = {},
  ) {
    const voice = VOICE_FORMATS[name] ?? "any";
    this.capabilities = { maxTextLength: 4096, maxUploadBytes: 1024 * 1024, edits: true, draftStreaming: false, reactions: false, buttons: false, threads: true, typing: true, voice, ...capabilities } as ChannelCapabilities;
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  status(): ChannelStatus {
    return { connected: true };
  }

  async sendText(): Promise<SentMessage[]> {
    return [{ messageId: `text-${++this.counter}`, sentAt: new Date() }];
  }

  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    switch (this.behaviour.get(file.kind) ?? "accept") {
      case "refuse":
        throw new SendError(`Bad Request: PHOTO_INVALID_DIMENSIONS for ${file.kind}`, { kind: "rejected" });
      case "hang":
        return new Promise<SentMessage>(() => {});
      case "drop":
        // As an adapter classifies a connection cut after the upload went out.
        throw new SendError("socket hang up", { kind: "uncertain" });
      case "accept": {
        const messageId = `m-${++this.counter}`;
        this.received.push({ to, file, bytes: await readFile(file.path), replyTo: opts.replyTo, messageId });
        return { messageId, sentAt: new Date() };
      }
    }
  }

  async download(attachment: Attachment, into: string): Promise<string> {
    this.downloads.push(attachment);
    const bytes = this.files.get(attachment.ref);
    if (!bytes) throw new Error(`file ${attachment.ref} not found on the platform`);
    await mkdir(into, { recursive: true });
    const path = join(into, `${attachment.ref}-${attachment.name ?? attachment.kind}`);
    await writeFile(path, bytes);
    return path;
  }
}
