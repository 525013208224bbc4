/**
 * Buttons, and what pressing one does. Whoever offers buttons (a command's answer, the step limit, the owner's
 * pairing notice) describes each as the text it stands for (`/pair telegram ABCD2345`, `continue`); the buttons are
 * recorded here under short random ids, with who may press them, in which chat, until when. A press is checked
 * against its record (the intended person, the chat, not expired, not used), answered at once, and then becomes an
 * ordinary inbound message with that text from the presser, so access control, the command table and the session
 * queue treat it exactly as if the presser had typed it. Channels without buttons get the typed forms in the text.
 */
import type { Speech } from "../core/i18n.js";
import { ENGLISH } from "../infra/i18n/index.js";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { CommandReply } from "../core/commands.js";
import type { ButtonAudience, ButtonMessages } from "../core/button-messages.js";
import type { Outbound } from "../core/outbound.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type {
  ButtonPress,
  ButtonRow,
  ButtonSpec,
  Channel,
  ChannelName,
  HandleOutcome,
  InboundMessage,
  PressAnswer,
} from "../core/types.js";

/** How long a button works: pairing codes expire after an hour, a task list or a Continue goes stale. */
export const ACTION_TTL_MS = 60 * 60_000;
/** How long a used button is remembered as used ("already done"). */
const USED_TTL_MS = 24 * 60 * 60_000;

const recordSchema = z.object({
  run: z.string().min(1),
  channel: z.string(),
  /** Who may press it: platform user ids on `channel`. */
  userIds: z.array(z.string()).min(1),
  /** The chat the buttons were sent to; absent for a direct message, where only its recipient sees them. */
  chatId: z.string().optional(),
  /** Its kind, which not every platform's press reports (Feishu's card callback). */
  chatType: z.enum(["direct", "group"]),
  threadId: z.string().optional(),
  expiresAt: z.number(),
});
type ActionRecord = z.output<typeof recordSchema>;


/** What a message gets: buttons for a channel that has them, or the typed forms appended to the text. */
export interface RenderedButtons {
  text: string;
  buttons?: ButtonRow[];
}

/** Offered when a turn stops at the step limit: pressing it asks for a follow-up turn in the same session. */
export const CONTINUE_BUTTON: ButtonSpec = { label: "Continue", run: "continue", style: "primary" };

export type PressRefusal = "unknown" | "expired" | "not_yours" | "used";

/** Catalog keys of the notices a refused press gets. */
const REFUSALS: Record<PressRefusal, string> = {
  unknown: "buttons.unknown",
  expired: "buttons.expired",
  not_yours: "buttons.notYours",
  used: "buttons.used",
};

export class ButtonActions {
  private readonly records;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.records = store.namespace<unknown>("actions");
  }

  /**
   * Records the buttons for `audience` and renders them for `channel`: as buttons where it has them, otherwise as
   * lines "Label: typed form" under the text.
   */
  async render(channel: Channel, text: string, rows: readonly ButtonSpec[][], audience: ButtonAudience): Promise<RenderedButtons> {
    if (rows.length === 0) return { text };
    if (!channel.capabilities.buttons) {
      const lines = rows.flat().map((spec) => `${spec.label}: ${spec.run}`);
      return { text: `${text}\n\n${lines.join("\n")}` };
    }
    const expiresAt = this.now() + ACTION_TTL_MS;
    const buttons: ButtonRow[] = [];
    for (const row of rows) {
      const rendered: ButtonRow = [];
      for (const spec of row) {
        const actionId = randomBytes(12).toString("base64url");
        const record: ActionRecord = {
          run: spec.run,
          channel: audience.channel,
          userIds: spec.userIds ?? audience.userIds,
          ...(audience.chatId !== undefined ? { chatId: audience.chatId } : {}),
          chatType: audience.chatType,
          ...(audience.threadId !== undefined ? { threadId: audience.threadId } : {}),
          expiresAt,
        };
        await this.records.set(recordKey(actionId), record, ACTION_TTL_MS);
        rendered.push({ label: spec.label, actionId, ...(spec.style ? { style: spec.style } : {}) });
      }
      buttons.push(rendered);
    }
    return { text, buttons };
  }

  /** A reply's buttons, for the sender of `message` in its chat (or as typed forms in the text). */
  forReply(channel: Channel, message: InboundMessage, reply: string | CommandReply): Promise<RenderedButtons> {
    if (typeof reply === "string" || !reply.buttons) return Promise.resolve({ text: typeof reply === "string" ? reply : reply.text });
    return this.render(channel, reply.text, reply.buttons, {
      channel: message.channel,
      userIds: [message.sender.id],
      chatId: message.chat.id,
      chatType: message.chat.type,
      ...(message.chat.threadId !== undefined ? { threadId: message.chat.threadId } : {}),
    });
  }

  /**
   * Handles one press: refuses it (with a notice to the presser, nothing else happens) unless the record allows
   * this presser in this chat and the button is unused; otherwise marks it used, takes the buttons off, and hands
   * the action's text to `handle` as a message from the presser.
   */
  async press(press: ButtonPress, handle: (message: InboundMessage) => Promise<HandleOutcome>, speech: Speech = ENGLISH): Promise<void> {
    const log = this.log.child({ channel: press.channel, chatId: press.chat.id, userId: press.sender.id, pressId: press.id });
    try {
      const verdict = await this.check(press);
      if ("refusal" in verdict) {
        log.info({ audit: "refused", reason: `button press: ${verdict.refusal}` }, "button press refused");
        await answer(press, { notice: speech.t(REFUSALS[verdict.refusal]), ...(verdict.refusal === "used" ? { clearButtons: true } : {}) }, log);
        return;
      }
      await answer(press, { clearButtons: true }, log);
      log.info({ action: verdict.record.run.split(/\s/)[0] }, "button pressed");
      await handle(messageOf(press, verdict.record));
    } catch (err) {
      log.error({ err }, "handling a button press failed");
      await answer(press, { notice: speech.t("errors.button") }, log);
    }
  }

  private async check(press: ButtonPress): Promise<{ record: ActionRecord } | { refusal: PressRefusal }> {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(press.actionId)) return { refusal: "unknown" };
    const parsed = recordSchema.safeParse(await this.records.get(recordKey(press.actionId)));
    if (!parsed.success) {
      const used = await this.records.get(usedKey(press.actionId));
      return { refusal: used === undefined ? "unknown" : "used" };
    }
    const record = parsed.data;
    if (record.expiresAt <= this.now()) return { refusal: "expired" };
    const here = record.channel === press.channel && (record.chatId === undefined || record.chatId === press.chat.id);
    if (!here || !record.userIds.includes(press.sender.id)) return { refusal: "not_yours" };
    // The one press that runs it: across replicas and double clicks.
    if (!(await this.store.coordinator.setIfAbsent(`action:${press.actionId}`, USED_TTL_MS))) return { refusal: "used" };
    await this.records.set(usedKey(press.actionId), true, USED_TTL_MS);
    await this.records.delete(recordKey(press.actionId));
    return { record };
  }
}

/** The ButtonMessages port over the recorded buttons and the outbound service. */
export function buttonMessages(actions: ButtonActions, outbound: Outbound, channelOf: (name: ChannelName) => Channel | undefined): ButtonMessages {
  return {
    async send(to, text, rows, audience, opts = {}) {
      const channel = channelOf(to.channel);
      if (!channel) throw new Error(`The channel ${to.channel} is not running`);
      const rendered = await actions.render(channel, text, rows, audience);
      return outbound.sendText(to, rendered.text, { ...opts, ...(rendered.buttons ? { buttons: rendered.buttons } : {}) });
    },
  };
}

/** A press the platform no longer takes an answer for (too old, message gone) still does its action. */
async function answer(press: ButtonPress, reply: PressAnswer, log: Logger): Promise<void> {
  try {
    await press.answer(reply);
  } catch (err) {
    log.warn({ err }, "could not answer the button press");
  }
}

/** The press as the message its presser would have typed; its id makes the router's dedup drop a repeat too. */
function messageOf(press: ButtonPress, record: ActionRecord): InboundMessage {
  const chat = { ...press.chat, type: record.chatType, ...(record.threadId !== undefined && press.chat.threadId === undefined ? { threadId: record.threadId } : {}) };
  return {
    id: `${press.channel}:press:${press.actionId}`,
    platformMessageId: press.messageId,
    channel: press.channel,
    chat,
    sender: press.sender,
    text: record.run,
    attachments: [],
    // Pressing the bot's button addresses the bot, also in a group that needs a mention.
    mentionsBot: true,
    receivedAt: press.receivedAt,
    ...(press.locale !== undefined ? { locale: press.locale } : {}),
  };
}

function recordKey(actionId: string): string {
  return `button:${actionId}`;
}

function usedKey(actionId: string): string {
  return `used:${actionId}`;
}
