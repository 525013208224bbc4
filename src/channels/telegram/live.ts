/**
 * Telegram replies as they are written. In private chats a draft (sendMessageDraft: an animated, ephemeral
 * preview) shows the part being written, then the reply is sent as usual; where drafts are refused, and in groups
 * and topics, a preview message is edited in place (editMessageText), one message per 4096-character part.
 * Previews are edited without the retrying client: a 429 only pauses the preview, it never holds the turn.
 */
import { GrammyError, type Api } from "grammy";
import { randomInt } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import type { LiveReplyOptions, OutboundTarget, SentMessage, StreamingMode } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import { EditPreview, type EditRefusal, type PreviewTransport } from "../live-preview.js";
import { RateLimitedError, type Presenter } from "../live-reply.js";
import { telegramChunks, type TelegramChunk } from "./format.js";
import { placementOf, TEXT_LIMIT, type TelegramSender } from "./send.js";

export interface TelegramLiveDeps {
  /** The retrying sender and its client, for new messages and the final reply. */
  sender: TelegramSender;
  api: Api;
  /** A client that does not retry, for edits and drafts. */
  previewApi: Api;
  log: Logger;
  clock: Clock;
}

export interface TelegramPace {
  /** Least time between two edits. */
  intervalMs: number;
  /** How long a draft stays unchanged before it is sent again. */
  draftRefreshMs: number;
}

/** The presenter for a reply into `to`: a draft in private chats when the mode is "draft", else a preview message. */
export function telegramPresenter(
  deps: TelegramLiveDeps,
  mode: Exclude<StreamingMode, "off">,
  to: OutboundTarget,
  opts: LiveReplyOptions,
  pace: TelegramPace,
): Presenter {
  const preview = new EditPreview(new TelegramPreview(deps, to, opts.replyTo), deps.log, { editIntervalMs: pace.intervalMs, clock: deps.clock });
  return mode === "draft" && opts.chatType === "direct" ? new TelegramDraft(deps, to, opts.replyTo, preview, pace.draftRefreshMs) : preview;
}

class TelegramPreview implements PreviewTransport<TelegramChunk> {
  constructor(
    private readonly deps: TelegramLiveDeps,
    private readonly to: OutboundTarget,
    private readonly replyTo: string | undefined,
  ) {}

  render(markdown: string): TelegramChunk[] {
    return telegramChunks(markdown, TEXT_LIMIT);
  }

  keyOf(chunk: TelegramChunk): string {
    return chunk.html;
  }

  async send(chunk: TelegramChunk, first: boolean): Promise<string> {
    const placement = placementOf(this.to, first ? this.replyTo : undefined);
    const message = await this.deps.sender.withHtmlFallback(this.to, chunk, "sendMessage", (body) =>
      this.deps.api.sendMessage(this.to.chatId, body.text, { ...placement, ...body.format }),
    );
    return String(message.message_id);
  }

  async edit(id: string, chunk: TelegramChunk): Promise<void> {
    const { previewApi } = this.deps;
    await this.deps.sender.withHtmlFallback(this.to, chunk, "editMessageText", (body) =>
      previewApi.editMessageText(this.to.chatId, Number(id), body.text, body.format),
    );
  }

  async delete(id: string): Promise<void> {
    await this.deps.api.deleteMessage(this.to.chatId, Number(id));
  }

  refusal(err: unknown): EditRefusal {
    const refused = grammyErrorOf(err);
    if (!refused) return undefined;
    if (refused.error_code === 429) return { kind: "rate-limited", retryAfterMs: (refused.parameters.retry_after ?? 1) * 1000 };
    if (/message is not modified/i.test(refused.description)) return { kind: "unchanged" };
    if (/message to edit not found|message can't be edited/i.test(refused.description)) return { kind: "gone" };
    return undefined;
  }

  sendText(markdown: string): Promise<SentMessage[]> {
    return this.deps.sender.sendText(this.to, markdown, { ...(this.replyTo !== undefined ? { replyTo: this.replyTo } : {}) });
  }
}

/** Drafts of a private chat; the first refusal (other than a 429) hands the reply over to a preview message. */
class TelegramDraft implements Presenter {
  private readonly draftId = randomInt(1, 2 ** 31);
  private refused = false;

  constructor(
    private readonly deps: TelegramLiveDeps,
    private readonly to: OutboundTarget,
    private readonly replyTo: string | undefined,
    private readonly fallback: EditPreview<TelegramChunk>,
    private readonly refreshMs: number,
  ) {}

  /** A draft is ephemeral; a preview message stays. */
  refreshAfterMs(): number | undefined {
    return this.refused ? undefined : this.refreshMs;
  }

  async show(text: string): Promise<void> {
    if (this.refused) return this.fallback.show(text);
    // The draft shows the part being written: the last message's worth.
    const part = telegramChunks(text, TEXT_LIMIT).at(-1);
    if (!part) return;
    const { message_thread_id } = placementOf(this.to, undefined);
    try {
      await this.deps.sender.withHtmlFallback(this.to, part, "sendMessageDraft", (body) =>
        this.deps.previewApi.sendMessageDraft(Number(this.to.chatId), this.draftId, body.text, {
          ...body.format,
          ...(message_thread_id !== undefined ? { message_thread_id } : {}),
        }),
      );
    } catch (err) {
      const refused = grammyErrorOf(err);
      if (refused?.error_code === 429) throw new RateLimitedError((refused.parameters.retry_after ?? 1) * 1000);
      this.deps.log.info({ chatId: this.to.chatId, reason: refused?.description ?? String(err) }, "Telegram refused the draft; previewing by message edits");
      this.refused = true;
      await this.fallback.show(text);
    }
  }

  finish(text: string): Promise<SentMessage[]> {
    // The draft disappears when the bot sends its message.
    if (this.refused) return this.fallback.finish(text);
    return this.deps.sender.sendText(this.to, text, { ...(this.replyTo !== undefined ? { replyTo: this.replyTo } : {}) });
  }

  cancel(): Promise<void> {
    return this.fallback.cancel();
  }
}

/** The Bot API's refusal, also when wrapped by the sender's error. */
function grammyErrorOf(err: unknown): GrammyError | undefined {
  if (err instanceof GrammyError) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof GrammyError ? cause : undefined;
}
