/**
 * deliver_artifacts: sends workspace files to a chat and answers with one receipt per artifact. Each artifact is
 * checked and staged (artifact.ts), skipped when this session already delivered it, prepared (voice conversion),
 * uploaded with a deadline (send.ts), retried as a plain file when the platform refuses it as a photo, and its
 * receipt written to the ledger before the next one starts, so a batch cut short still leaves its trail.
 */
import type { Outbound } from "../core/outbound.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { targetOf, type Channel, type ChannelName, type OutboundFile, type OutboundTarget } from "../core/types.js";
import { redactText } from "../infra/config/secrets.js";
import { requirePermission, ToolError, type ToolContext } from "../core/tools.js";
import { stageArtifact, type ArtifactRequest, type StagedArtifact } from "./artifact.js";
import type { DeliveryMemory } from "./delivered.js";
import type { Ffmpeg } from "./ffmpeg.js";
import type { LedgerEntry, Receipt, ReceiptErrorCode, ReceiptLedger } from "./receipts.js";
import { sendWithDeadline } from "./send.js";
import { prepareVoice } from "./voice.js";

export interface DeliverTarget {
  channel?: ChannelName | undefined;
  chat_id: string;
  thread_id?: string | undefined;
}

export interface DeliverRequest {
  artifacts: ArtifactRequest[];
  target?: DeliverTarget | undefined;
}

export interface DeliverResult {
  ok: boolean;
  receipts: Receipt[];
  note?: string;
}

export interface DelivererDeps {
  /** For the channel's capabilities (upload limit, voice format). */
  channelOf: (name: ChannelName) => Channel | undefined;
  /** Every file goes out through here (the one retry policy). */
  outbound: Outbound;
  ledger: ReceiptLedger;
  memory: DeliveryMemory;
  /** Whether a message ever came from the chat: files go to another chat only if it did. */
  isKnownChat: (channel: ChannelName, chatId: string) => Promise<boolean>;
  ffmpeg: Ffmpeg;
  sendTimeoutMs: number;
  /** Blanked out of error texts before they reach a receipt. */
  secrets: readonly string[];
}

/** Where one batch goes and through what. */
interface Destination {
  to: OutboundTarget;
  channel: Channel;
  /** The platform id of the message being answered, when the files go back to the chat that asked. */
  replyTo?: string;
}

const NOT_DELIVERED_NOTE =
  'Only artifacts with status "delivered" reached the chat. Tell the user which ones did not and why; ' +
  'after a "timeout" the file may still arrive, so do not send it again without asking.';

export class Deliverer {
  constructor(private readonly deps: DelivererDeps) {}

  get ffmpeg(): Ffmpeg {
    return this.deps.ffmpeg;
  }

  async deliver(request: DeliverRequest, ctx: ToolContext): Promise<DeliverResult> {
    const destination = await this.destinationOf(request.target, ctx);
    const stagingDir = await mkdtemp(join(tmpdir(), "switchboard-outbox-"));
    try {
      const receipts: Receipt[] = [];
      for (const [index, artifact] of request.artifacts.entries()) {
        const receipt = ctx.signal.aborted
          ? this.receipt(index, artifact, destination.to, { status: "failed", error_code: "cancelled", error: "the turn was cancelled first" })
          : await this.deliverOne(index, artifact, destination, stagingDir, ctx);
        receipts.push(receipt);
        await this.deps.ledger.record([ledgerEntry(receipt, ctx)]);
        if (receipt.status === "failed") ctx.log.warn({ receipt }, "an artifact was not delivered");
      }
      const ok = receipts.every((r) => r.status !== "failed");
      return ok ? { ok, receipts } : { ok, receipts, note: NOT_DELIVERED_NOTE };
    } finally {
      await rm(stagingDir, { recursive: true, force: true });
    }
  }

  /**
   * The chat the files go to. Another chat than the one the turn is in needs the "admin" permission (the owner)
   * and must be a chat the gateway has heard from; this is the one place that decides it.
   */
  private async destinationOf(target: DeliverTarget | undefined, ctx: ToolContext): Promise<Destination> {
    const here: OutboundTarget = ctx.message ? targetOf(ctx.message) : { channel: ctx.channel, chatId: ctx.chatId };
    const wanted: OutboundTarget = target
      ? { channel: target.channel ?? ctx.channel, chatId: target.chat_id, ...(target.thread_id !== undefined ? { threadId: target.thread_id } : {}) }
      : here;
    const sameChat = wanted.channel === here.channel && wanted.chatId === here.chatId;
    if (!sameChat) {
      requirePermission(ctx, "admin", "Delivering files to another chat");
      if (!(await this.deps.isKnownChat(wanted.channel, wanted.chatId))) {
        throw new ToolError(`No chat ${wanted.chatId} on ${wanted.channel} has written to the gateway; files go only to chats it knows`, "invalid_input");
      }
    }
    const channel = this.deps.channelOf(wanted.channel);
    if (!channel) throw new ToolError(`The ${wanted.channel} channel is not running, so nothing can be delivered there`, "failed");
    const replyTo = sameChat && wanted.threadId === here.threadId ? ctx.message?.platformMessageId : undefined;
    return { to: wanted, channel, ...(replyTo !== undefined ? { replyTo } : {}) };
  }

  private async deliverOne(index: number, artifact: ArtifactRequest, dest: Destination, stagingDir: string, ctx: ToolContext): Promise<Receipt> {
    const staging = await stageArtifact(artifact, {
      workspaceDir: ctx.workspaceDir,
      maxBytes: dest.channel.capabilities.maxUploadBytes,
      stagingDir,
      index,
    });
    if (!staging.ok) {
      const { code, error, name, size } = staging;
      return this.receipt(index, artifact, dest.to, { status: "failed", error_code: code, error, name, size });
    }
    const staged = staging.artifact;
    const dedupeKey = artifact.dedupe_key ?? `sha256:${staged.sha256}`;
    const facts = { name: staged.name, size: staged.size, sha256: staged.sha256, mime: staged.mime, dedupe_key: dedupeKey };
    const earlier = await this.deps.memory.find(ctx.sessionKey, dest.to, dedupeKey);
    if (earlier) {
      const error = `already delivered in this conversation (message ${earlier.message_id}, ${earlier.delivered_at}); not sent again`;
      return this.receipt(index, artifact, dest.to, { ...facts, status: "skipped", error_code: "deduped", error, ...earlier });
    }
    // "." here and "-" in staged names (artifact.ts): a converted copy never overwrites its source.
    const outgoing = await this.outgoingFile(artifact, staged, dest, join(stagingDir, `${index}.converted.ogg`), ctx);
    const sent = await this.send(artifact, outgoing, dest, ctx);
    if (sent.status === "delivered") {
      await this.deps.memory.remember(ctx.sessionKey, dest.to, dedupeKey, { message_id: sent.message_id, delivered_at: sent.delivered_at });
    }
    return this.receipt(index, artifact, dest.to, { ...facts, ...sent });
  }

  private async outgoingFile(
    artifact: ArtifactRequest,
    staged: StagedArtifact,
    dest: Destination,
    convertedPath: string,
    ctx: ToolContext,
  ): Promise<{ file: OutboundFile; sentAs?: string; warnings: string[] }> {
    if (artifact.type === "voice") {
      const { ffmpeg } = this.deps;
      return prepareVoice(staged, { format: dest.channel.capabilities.voice, ffmpeg, convertedPath, caption: artifact.caption, log: ctx.log, signal: ctx.signal });
    }
    const caption = artifact.caption !== undefined ? { caption: artifact.caption } : {};
    return { file: { path: staged.stagedPath, kind: artifact.type, name: staged.name, mime: staged.mime, ...caption }, warnings: [] };
  }

  /** Uploads the file; an image the platform refuses (not one that timed out) goes again as a plain file. */
  private async send(
    artifact: ArtifactRequest,
    outgoing: { file: OutboundFile; sentAs?: string; warnings: string[] },
    dest: Destination,
    ctx: ToolContext,
  ): Promise<SendResult> {
    const options = { timeoutMs: this.deps.sendTimeoutMs, signal: ctx.signal, log: ctx.log, ...(dest.replyTo !== undefined ? { replyTo: dest.replyTo } : {}) };
    const warnings = [...outgoing.warnings];
    let sentAs = outgoing.sentAs;
    let outcome = await sendWithDeadline(this.deps.outbound, dest.to, outgoing.file, options);
    if (outcome.kind === "refused" && artifact.type === "image") {
      warnings.push(`${dest.to.channel} refused it as a photo (${this.clean(outcome.error)}), so it was sent as a file`);
      sentAs = "file";
      outcome = await sendWithDeadline(this.deps.outbound, dest.to, { ...outgoing.file, kind: "file" }, options);
    }
    const extra = { ...(sentAs !== undefined ? { sent_as: sentAs } : {}), ...(warnings.length > 0 ? { warnings } : {}) };
    switch (outcome.kind) {
      case "sent":
        return { status: "delivered", message_id: outcome.message.messageId, delivered_at: outcome.message.sentAt.toISOString(), ...extra };
      case "refused":
        return { status: "failed", error_code: "send_failed", error: this.clean(outcome.error), ...extra };
      case "uncertain": {
        const error = `${this.clean(outcome.error)}. The file may still arrive: do not send it again blindly; ask the user whether it came`;
        return { status: "failed", error_code: "timeout", error, ...extra };
      }
    }
  }

  private clean(error: string): string {
    return redactText(error, this.deps.secrets);
  }

  private receipt(index: number, artifact: ArtifactRequest, to: OutboundTarget, fields: Partial<Receipt> & Pick<Receipt, "status">): Receipt {
    const { status, ...rest } = fields;
    return {
      index,
      type: artifact.type,
      path: artifact.path,
      name: fields.name ?? artifact.name ?? artifact.path,
      size: null,
      sha256: null,
      mime: null,
      status,
      error_code: null,
      error: null,
      channel: to.channel,
      chat_id: to.chatId,
      message_id: null,
      delivered_at: null,
      dedupe_key: null,
      ...rest,
    };
  }
}

type SendResult =
  | { status: "delivered"; message_id: string; delivered_at: string; sent_as?: string; warnings?: string[] }
  | { status: "failed"; error_code: ReceiptErrorCode; error: string; sent_as?: string; warnings?: string[] };

function ledgerEntry(receipt: Receipt, ctx: ToolContext): LedgerEntry {
  return { ...receipt, session_key: ctx.sessionKey, trace_id: ctx.traceId, recorded_at: new Date().toISOString() };
}
