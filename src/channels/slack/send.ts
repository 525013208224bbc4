/**
 * Text and files out through the Web API. Markdown becomes mrkdwn cut into messages of at most 4,000 characters
 * (format.ts); each part is one chat.postMessage into the target's thread, buttons under the last part as Block Kit
 * (then the text goes in section blocks, since a message with blocks shows them instead of its text). Files go
 * through files.getUploadURLExternal, the upload, and files.completeUploadExternal (the SDK's files.uploadV2).
 * Slack has no idempotency key for posts: a send that may have arrived is never repeated (uncertain).
 */
import { stat } from "node:fs/promises";
import { LRUCache } from "lru-cache";
import type { WebClient } from "@slack/web-api";
import { chunkText, formatBytes } from "../../core/text.js";
import { SendError } from "../../core/send-error.js";
import type { ButtonRow, OutboundFile, OutboundTarget, SendTextOptions, SentMessage } from "../../core/types.js";
import { slackErrorOf, slackSendError } from "./api.js";
import { escapeMrkdwn, markdownToMrkdwn, MAX_TEXT_LENGTH, mrkdwnChunks } from "./format.js";
import { dateOf } from "./payload.js";

/** A section block's text is at most 3,000 characters. */
const SECTION_LENGTH = 3_000;
/** Slack: at most 25 elements in an actions block; a button's label is at most 75 characters. */
const ROW_WIDTH = 25;
const LABEL_LENGTH = 75;

export type Block = Record<string, unknown> & { type: string };

export class SlackSender {
  /** `channel:thread_ts` of threads the bot wrote in: messages there are addressed to it. */
  private readonly botThreads = new LRUCache<string, true>({ max: 10_000 });
  /** user id -> the bot's DM with them; bounded, since a forgotten one is only opened again (one more call). */
  private readonly directChannels = new LRUCache<string, string>({ max: 10_000 });

  constructor(
    private readonly client: WebClient,
    private readonly maxUploadBytes: number,
  ) {}

  inBotThread(channel: string, threadTs: string): boolean {
    return this.botThreads.has(`${channel}:${threadTs}`);
  }

  /** Sends the parts from `opts.fromPart` on; a failure carries the parts that did arrive (SendError.sent). */
  async sendText(to: OutboundTarget, markdown: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    const parts = mrkdwnChunks(markdown);
    const sent: SentMessage[] = [];
    for (const [index, text] of parts.entries()) {
      if (index < (opts.fromPart ?? 0)) continue;
      const buttons = index === parts.length - 1 ? opts.buttons : undefined;
      try {
        sent.push(await this.post(to, text, buttons, `message ${index + 1} of ${parts.length}`));
      } catch (err) {
        throw err instanceof SendError ? err.withSent(sent) : err;
      }
    }
    return sent;
  }

  /** One message of mrkdwn within Slack's limit, with buttons under it when given. */
  async post(to: OutboundTarget, text: string, buttons?: ButtonRow[], what = "message"): Promise<SentMessage> {
    const result = await this.call(what, to.chatId, () =>
      this.client.chat.postMessage({
        channel: to.chatId,
        text,
        ...(buttons && buttons.length > 0 ? { blocks: blocksOf(text, buttons) } : {}),
        ...(to.threadId !== undefined ? { thread_ts: to.threadId } : {}),
        // Model text never pings: mentions are escaped (format.ts) and names are not linked.
        link_names: false,
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    if (typeof result.ts !== "string") throw new SendError(`Slack accepted ${what} for ${to.chatId} but answered without a ts`, { kind: "uncertain" });
    if (to.threadId !== undefined) this.botThreads.set(`${result.channel ?? to.chatId}:${to.threadId}`, true);
    return { messageId: result.ts, sentAt: dateOf(result.ts) };
  }

  async update(to: OutboundTarget, ts: string, text: string, blocks?: Block[]): Promise<void> {
    await this.call("edit", to.chatId, () => this.client.chat.update({ channel: to.chatId, ts, text, link_names: false, ...(blocks ? { blocks } : {}) }));
  }

  async delete(to: OutboundTarget, ts: string): Promise<void> {
    await this.call("delete", to.chatId, () => this.client.chat.delete({ channel: to.chatId, ts }));
  }

  /** A notice only `user` sees. */
  async ephemeral(to: OutboundTarget, user: string, text: string): Promise<void> {
    const thread = to.threadId !== undefined ? { thread_ts: to.threadId } : {};
    await this.call("notice", to.chatId, () => this.client.chat.postEphemeral({ channel: to.chatId, user, text: escapeMrkdwn(text), ...thread }));
  }

  /** Adds (or, with `remove`, takes back) the bot's reaction; one already there (or already gone) is fine. */
  async react(channel: string, ts: string, name: string, remove = false): Promise<void> {
    try {
      await (remove ? this.client.reactions.remove({ channel, timestamp: ts, name }) : this.client.reactions.add({ channel, timestamp: ts, name }));
    } catch (err) {
      if (!["already_reacted", "no_reaction"].includes(slackErrorOf(err) ?? "")) throw slackSendError("reaction", channel, err);
    }
  }

  /** A caption longer than one message goes ahead of the file as text. */
  async sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    const { size } = await stat(file.path);
    if (size > this.maxUploadBytes) {
      throw new SendError(`${file.name} is ${formatBytes(size)}; the Slack channel uploads files up to ${formatBytes(this.maxUploadBytes)} (channels.slack.maxUploadMB), so it was not sent`, { kind: "rejected" });
    }
    const caption = file.caption ? markdownToMrkdwn(file.caption) : "";
    const captionFits = caption.length <= MAX_TEXT_LENGTH;
    if (!captionFits) await this.sendText(to, file.caption ?? "", opts.replyTo !== undefined ? { replyTo: opts.replyTo } : {});
    const upload = { file: file.path, filename: file.name, ...(captionFits && caption !== "" ? { initial_comment: caption } : {}) };
    const channel = await this.conversationOf(to.chatId);
    const result = await this.call(`file ${file.name}`, to.chatId, () =>
      this.client.files.uploadV2(to.threadId !== undefined ? { ...upload, channel_id: channel, thread_ts: to.threadId } : { ...upload, channel_id: channel }),
    );
    const uploaded = (result as { files?: Array<{ files?: Array<{ id?: string }> }> }).files?.[0]?.files?.[0]?.id;
    return { messageId: uploaded ?? file.name, sentAt: new Date() };
  }

  /**
   * The conversation to share a file in. Messages may name a person (chat.postMessage then writes in the bot's DM
   * with them), a file share may not: a user id becomes that DM (conversations.open, scope im:write).
   */
  private async conversationOf(chatId: string): Promise<string> {
    if (!/^[UW][A-Z0-9]+$/.test(chatId)) return chatId;
    const known = this.directChannels.get(chatId);
    if (known !== undefined) return known;
    const opened = await this.call("direct message", chatId, () => this.client.conversations.open({ users: chatId }));
    const id = opened.channel?.id;
    if (id === undefined) throw new SendError(`Slack opened no direct message with ${chatId}`, { kind: "rejected" });
    this.directChannels.set(chatId, id);
    return id;
  }

  private async call<T>(what: string, channel: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw slackSendError(what, channel, err);
    }
  }
}

/** The text in section blocks (what a message with blocks shows), then one actions block per row of buttons. */
export function blocksOf(text: string, rows: readonly ButtonRow[]): Block[] {
  const sections = chunkText(text, { maxLength: SECTION_LENGTH }).map((part): Block => ({ type: "section", text: { type: "mrkdwn", text: part } }));
  const actions = rows
    .flatMap((row) => Array.from({ length: Math.ceil(row.length / ROW_WIDTH) }, (_, i) => row.slice(i * ROW_WIDTH, (i + 1) * ROW_WIDTH)))
    .map(
      (row): Block => ({
        type: "actions",
        elements: row.map((button) => ({
          type: "button",
          action_id: button.actionId,
          text: { type: "plain_text", text: button.label.slice(0, LABEL_LENGTH), emoji: true },
          ...(button.style === "primary" || button.style === "danger" ? { style: button.style } : {}),
        })),
      }),
    );
  return [...sections, ...actions];
}
