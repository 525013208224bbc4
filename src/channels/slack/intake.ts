/**
 * What arrives, by either transport (Socket Mode envelopes, Events API requests), made ready to acknowledge: an
 * event is validated, normalized and recorded in the inbox first (so an acknowledged message survives a crash),
 * and handed to the gateway only after the acknowledgement; presses and slash commands are acknowledged at once
 * and handled after. Whatever the channel does not handle is acknowledged too, or Slack sends it again.
 */
import type { ButtonPressHandler, InboundHandler, InboundMessage } from "../../core/types.js";
import type { Logger } from "../../infra/log.js";
import type { MessageInbox } from "../inbox.js";
import { commandOf, pressOf } from "./interactions.js";
import { normalizeMessage, type SlackIdentity } from "./normalize.js";
import { blockActionsSchema, eventCallbackSchema, messageEventSchema, problemsOf, slashCommandSchema } from "./payload.js";
import type { SlackSender } from "./send.js";
import type { EnvelopeKind } from "./socket.js";
import type { SlackLocales } from "./locales.js";
import type { SlackUserGroups } from "./user-groups.js";

/** accepted: it may be acknowledged; after: what to do once it is. */
export interface Intake {
  accepted: boolean;
  after?: () => void;
}

export interface IntakeOptions {
  inbox: MessageInbox;
  sender: SlackSender;
  groups: SlackUserGroups;
  locales: SlackLocales;
  slashCommand: string;
  log: Logger;
}

export interface Receivers {
  bot: SlackIdentity;
  onMessage: InboundHandler;
  onPress: ButtonPressHandler | undefined;
  /** Keeps the handling until stop() waits for it. */
  track: (work: Promise<unknown>) => void;
}

const IGNORED: Intake = { accepted: true };

export class SlackIntake {
  constructor(private readonly opts: IntakeOptions) {}

  async receive(kind: EnvelopeKind, body: unknown, retryNum: number, to: Receivers): Promise<Intake> {
    if (kind === "events_api") return this.event(body, retryNum, to);
    if (kind === "interactive") return { accepted: true, after: () => this.press(body, to) };
    return { accepted: true, after: () => this.command(body, to) };
  }

  /**
   * What Slack knows of the sender beyond the event: their language (for the gateway's own words) and, in a
   * workspace's channels, their user groups, for access rules, as roles are on Discord.
   */
  async withSender(message: InboundMessage): Promise<InboundMessage> {
    const { groups, locales } = this.opts;
    const [locale, roles] = await Promise.all([locales.of(message.sender.id), message.chat.type === "group" ? groups.of(message.sender.id) : undefined]);
    return { ...message, ...(locale !== undefined ? { locale } : {}), ...(roles !== undefined ? { sender: { ...message.sender, roles } } : {}) };
  }

  private async event(body: unknown, retryNum: number, to: Receivers): Promise<Intake> {
    const { log, inbox, sender } = this.opts;
    const callback = eventCallbackSchema.safeParse(body);
    if (!callback.success) {
      log.warn({ problems: problemsOf(callback.error) }, "malformed Slack event callback; skipped");
      return IGNORED;
    }
    const { event, event_id: eventId, team_id: teamId } = callback.data;
    if (event.type !== "message" && event.type !== "app_mention") return IGNORED;
    const parsed = messageEventSchema.safeParse(event);
    if (!parsed.success) {
      log.warn({ eventId, problems: problemsOf(parsed.error) }, "malformed Slack message event; skipped");
      return IGNORED;
    }
    const result = normalizeMessage(parsed.data, { bot: to.bot, teamId, inBotThread: (c, t) => sender.inBotThread(c, t) });
    if ("skip" in result) {
      log.debug({ eventId, reason: result.skip }, "Slack event skipped");
      return IGNORED;
    }
    const { message } = result;
    let recorded: boolean;
    try {
      recorded = await inbox.record(message);
    } catch (err) {
      log.error({ err, eventId, messageId: message.id }, "could not record a Slack message; not acknowledged, so Slack sends it again");
      return { accepted: false };
    }
    // The same message as `message` and `app_mention`, or a redelivery, while the first is still waiting.
    if (!recorded) {
      log.debug({ eventId, messageId: message.id, retryNum }, "Slack message already waiting; this delivery dropped");
      return IGNORED;
    }
    return { accepted: true, after: () => to.track(this.withSender(message).then((m) => inbox.handle(m, to.onMessage, log))) };
  }

  private press(body: unknown, to: Receivers): void {
    const parsed = blockActionsSchema.safeParse(body);
    if (!parsed.success) {
      this.opts.log.debug({ type: (body as { type?: unknown } | null)?.type }, "Slack interaction other than a button press; skipped");
      return;
    }
    if (to.onPress) to.track(to.onPress(pressOf(parsed.data, this.opts.sender)));
  }

  private command(body: unknown, to: Receivers): void {
    const { log, inbox } = this.opts;
    const parsed = slashCommandSchema.safeParse(body);
    if (!parsed.success) {
      log.warn({ problems: problemsOf(parsed.error) }, "malformed Slack slash command; skipped");
      return;
    }
    const message = commandOf(parsed.data, this.opts.slashCommand);
    to.track(this.withSender(message).then((m) => inbox.handOver(m, to.onMessage, log)));
  }
}
