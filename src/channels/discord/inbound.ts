/**
 * The inbound filter: a raw MESSAGE_CREATE becomes an InboundMessage, or is dropped with the reason logged.
 * It validates the payload, never hands over the bot's own messages, limits how many bot messages in a row one
 * channel may pass on (two bots answering each other forever), and watches for withheld message content.
 */
import type { Logger } from "../../infra/log.js";
import type { InboundMessage } from "../../core/types.js";
import { ContentWithheldDetector } from "./diagnostics.js";
import { normalizeMessage, type DiscordDirectory } from "./normalize.js";
import { messageCreateSchema, type MessageCreate } from "./payload.js";

export interface InboundFilterOptions {
  /** Pass other bots' messages on; otherwise they reach the router marked as bots, which ignores them. */
  allowBots: boolean;
  maxBotTurnsInARow: number;
  log: Logger;
}

export class InboundFilter {
  private readonly contentWatch = new ContentWithheldDetector();
  /** Channel id -> bot messages passed on since a person last wrote there. */
  private readonly botStreaks = new Map<string, number>();

  constructor(private readonly opts: InboundFilterOptions) {}

  /** The problem found with withheld content, if any: the channel reports it in its status. */
  get contentProblem(): string | undefined {
    return this.contentWatch.detected;
  }

  accept(raw: unknown, dir: DiscordDirectory): InboundMessage | undefined {
    const { log } = this.opts;
    const parsed = messageCreateSchema.safeParse(raw);
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join(".") || "payload"}: ${issue.message}`);
      log.warn({ messageId: idOf(raw), problems }, "malformed Discord message payload; skipped");
      return undefined;
    }
    const payload = parsed.data;
    if (payload.author.id === dir.botId) {
      log.debug({ messageId: payload.id }, "Discord message skipped: the bot's own");
      return undefined;
    }
    const withheld = this.contentWatch.observe(payload);
    if (withheld) log.error(withheld);
    const botReason = this.botLoopReason(payload);
    if (botReason) {
      log.info({ messageId: payload.id, channelId: payload.channel_id }, botReason);
      return undefined;
    }
    const result = normalizeMessage(payload, dir);
    if ("skip" in result) {
      log.debug({ messageId: payload.id, reason: result.skip }, "Discord message skipped: not written by a person");
      return undefined;
    }
    return result.message;
  }

  private botLoopReason(payload: MessageCreate): string | undefined {
    if (payload.author.bot !== true) {
      this.botStreaks.delete(payload.channel_id);
      return undefined;
    }
    if (!this.opts.allowBots) return undefined;
    const streak = (this.botStreaks.get(payload.channel_id) ?? 0) + 1;
    if (streak > this.opts.maxBotTurnsInARow) {
      return `bot message dropped: ${this.opts.maxBotTurnsInARow} bot messages in a row in this channel (loop protection); a person must write first`;
    }
    this.botStreaks.set(payload.channel_id, streak);
    return undefined;
  }
}

function idOf(raw: unknown): unknown {
  return raw !== null && typeof raw === "object" ? (raw as { id?: unknown }).id : undefined;
}
