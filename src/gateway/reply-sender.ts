/**
 * Sends what the router answers to a message: through the turn's live preview or the outbound service, records
 * the message as answered as soon as the reply is out, and runs the features' hooks around a turn's reply.
 */
import type { CommandReply } from "../core/commands.js";
import type { Speech } from "../core/i18n.js";
import type { Outbound } from "../core/outbound.js";
import type { ReplyHook, ReplyReplacement, SentReply } from "../core/reply-hook.js";
import { isRetryableSend, type SendError } from "../core/send-error.js";
import type { AgentProfile } from "../core/agents.js";
import { replyKeyOf, targetOf, type Channel, type HandleOutcome, type InboundMessage } from "../core/types.js";
import type { Logger } from "../infra/log.js";
import { sendFailures, statusLabel } from "../infra/metrics.js";
import type { ButtonActions } from "./actions.js";
import type { InboundDedup } from "./inbound-dedup.js";
import type { LiveTurn } from "./live-turn.js";

/** Context of one inbound message on its way through the router. */
export interface Delivery {
  message: InboundMessage;
  channel: Channel;
  sessionKey: string;
  /** The agent that answers; undefined without configured agents. */
  agent: AgentProfile | undefined;
  log: Logger;
  traceId: string;
  /** The sender's language, for everything the router itself says. */
  speech: Speech;
}

export interface ReplySenderDeps {
  /** Every reply goes out through here (retries, outbox). */
  outbound: Outbound;
  /** Records the buttons under replies. */
  actions: ButtonActions;
  /** Told of each answered message, so a crash after the send does not answer it twice. */
  dedup: InboundDedup;
  /** The features' additions after a turn's text reply (a spoken rendition). */
  afterReply: readonly ReplyHook[];
  /** The features that may send a turn's reply in another form instead of its text (spoken only). */
  replyInstead: readonly ReplyReplacement[];
}

export class ReplySender {
  constructor(private readonly deps: ReplySenderDeps) {}

  /**
   * Sends `reply` in reply to the message. A reply queued in the outbox counts as answered: the outbox sends it or
   * logs its failure. A send that failed for good is logged here, once, and reported as "failed".
   */
  async reply(d: Delivery, reply: string | CommandReply, live?: LiveTurn): Promise<HandleOutcome> {
    try {
      const context = { traceId: d.traceId, messageId: d.message.id };
      const { text, buttons } = await this.deps.actions.forReply(d.channel, d.message, reply);
      // A streamed reply ends in its preview messages (edited into the final text). When that fails, the preview
      // is taken back and the reply goes the way every other does, through the outbound service and its outbox.
      const unfinished = live ? await this.finishLive(d, live, text) : undefined;
      if (unfinished === "finished") return await this.answered(d, "sent");
      // A live attempt that may have arrived keeps its window: the reply repeats it under the same key.
      const earlier = unfinished?.repeatableUntil;
      const opts = {
        replyTo: d.message.platformMessageId,
        idempotencyKey: replyKeyOf(d.message),
        context,
        ...(buttons ? { buttons } : {}),
        ...(earlier !== undefined ? { repeatableUntil: earlier } : {}),
      };
      const delivery = await this.deps.outbound.deliverText(targetOf(d.message), text, opts);
      return await this.answered(d, delivery.status);
    } catch (err) {
      sendFailures.inc({ channel: d.message.channel, status: statusLabel(err) });
      d.log.error({ err }, "sending the reply failed");
      return "failed";
    }
  }

  /** Answers with a notice instead of a turn (pairing code, slow down): the message itself was refused. */
  async notice(d: Delivery, text: string): Promise<HandleOutcome> {
    const outcome = await this.reply(d, text);
    return outcome === "answered" ? "refused" : outcome;
  }

  /**
   * The reply is out (or in the outbox): recorded now, before anything else the turn still does (taking the
   * acknowledgement back, releasing its places), so a crash after the send hands the message over again only
   * within this one store write. A failure here leaves it to the dedup's `finish` at the end.
   */
  async answered(d: Delivery, status: "sent" | "queued"): Promise<"answered"> {
    try {
      await this.deps.dedup.answered(d.message);
      d.log.debug({ status }, "reply delivered and recorded");
    } catch (err) {
      d.log.warn({ err, status }, "reply delivered; could not record it at once, recording it when the turn ends");
    }
    return "answered";
  }

  /** Whether a feature sent the reply in another form; a hook that fails is logged here and the text goes. */
  async replaced(reply: SentReply): Promise<boolean> {
    for (const hook of this.deps.replyInstead) {
      const replaced = await hook(reply).catch((err: unknown) => {
        reply.log.error({ err }, "sending the reply in another form failed; sending its text");
        return false;
      });
      if (replaced) return true;
    }
    return false;
  }

  /** A hook that fails is logged here; the text reply has gone out either way. */
  async afterReply(reply: SentReply): Promise<void> {
    for (const hook of this.deps.afterReply) {
      await hook(reply).catch((err: unknown) => reply.log.error({ err }, "adding to the reply failed"));
    }
  }

  /**
   * "finished" when the live preview became the reply; after a failure that may be repeated, the preview is taken
   * back and the failure returned, for the plain reply that follows.
   */
  private async finishLive(d: Delivery, live: LiveTurn, text: string): Promise<"finished" | SendError> {
    try {
      await live.finish(text);
      return "finished";
    } catch (err) {
      // A send that may have reached the platform is never made again: better a missing reply than a double one.
      if (!isRetryableSend(err)) throw err;
      d.log.warn({ err }, "the streamed reply could not be finished; sending it as a plain reply");
      await live.cancel().catch((cancelErr: unknown) => d.log.warn({ err: cancelErr }, "could not take back the preview"));
      return err;
    }
  }
}
