/**
 * Where updates enter, from the webhook or from polling: each is checked, recorded in the inbox (the moment it may
 * be acknowledged), then handled in the background: normalized and handed to the router, and removed from the
 * inbox once the router is done with it. Nothing here throws at the platform: a bad update is logged and dropped.
 */
import type { Logger } from "../../infra/log.js";
import type { ButtonPress, ButtonPressHandler, HandleOutcome, InboundHandler, InboundMessage, InboxEntry } from "../../core/types.js";
import type { Speech } from "../../core/i18n.js";
import { tooLarge, tooLargeNotice } from "./files.js";
import type { UpdateInbox } from "./inbox.js";
import { normalizeUpdate, type BotIdentity } from "./normalize.js";
import { updateSchema, type RawUpdate } from "./schema.js";

export interface IntakeOptions {
  inbox: UpdateInbox;
  log: Logger;
  handleEdits: boolean;
  maxDownloadBytes: number;
  /** The bot, once getMe has answered; rejects when the channel stops first. */
  identity: () => Promise<BotIdentity>;
  /** Tells the sender something about their message (a file too large to read). */
  notify: (message: InboundMessage, text: string) => Promise<void>;
  /** The words of such a notice, in the sender's language. */
  speechOf: (message: InboundMessage) => Promise<Speech>;
  /** The button press in a callback_query update (answered through the API), or why there is none. */
  pressOf: (update: RawUpdate) => { press: ButtonPress } | { skip: string };
}

export type Received = "accepted" | "duplicate" | "invalid";

/** Outcomes after which the sender was talking to the bot and deserves to hear why a file was not read. */
const ANSWERED: ReadonlySet<HandleOutcome> = new Set(["answered", "failed"]);

export class UpdateIntake {
  private handler: InboundHandler | undefined;
  private pressHandler: ButtonPressHandler | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly opts: IntakeOptions) {}

  setHandler(handler: InboundHandler | undefined, pressHandler?: ButtonPressHandler): void {
    this.handler = handler;
    this.pressHandler = pressHandler;
  }

  /** Resolves once the update is stored, then handles it in the background. Rejects only when the store fails. */
  async receive(body: unknown): Promise<Received> {
    const parsed = updateSchema.safeParse(body);
    if (!parsed.success) {
      this.opts.log.warn({ issue: parsed.error.issues[0]?.message }, "Telegram update without a valid update_id; dropped");
      return "invalid";
    }
    if (!(await this.opts.inbox.add(parsed.data))) return "duplicate";
    this.track(parsed.data);
    return "accepted";
  }

  /** Handles what an earlier run recorded but did not finish. */
  async replay(): Promise<void> {
    const pending = await this.opts.inbox.pending();
    if (pending.length > 0) this.opts.log.info({ updates: pending.length }, "handling Telegram updates left from the last run");
    for (const update of pending) this.track(update);
  }

  /** Waits for the updates being handled. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  private track(update: RawUpdate): void {
    const task = this.handle(update).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private async handle(update: RawUpdate): Promise<void> {
    const log = this.opts.log.child({ updateId: update.update_id });
    const entry = this.opts.inbox.entryOf(update.update_id);
    try {
      if (!(await this.process(update, entry, log))) return;
    } catch (err) {
      if (err instanceof ChannelStoppedError) return;
      log.error({ err }, "handling a Telegram update failed");
    }
    if (entry.removed) return;
    await this.opts.inbox.remove(update.update_id).catch((err: unknown) => log.warn({ err }, "could not clear a handled update from the inbox"));
  }

  /** False when the update must wait in the inbox for the next start. */
  private async process(update: RawUpdate, entry: InboxEntry, log: Logger): Promise<boolean> {
    const bot = await this.opts.identity();
    if (update.callback_query !== undefined) return this.pressed(update, log);
    const result = normalizeUpdate(update, { bot, handleEdits: this.opts.handleEdits });
    if (!result.ok) {
      if (result.expected) log.debug({ reason: result.reason }, "Telegram update skipped");
      else log.warn({ reason: result.reason }, "Telegram update dropped");
      return true;
    }
    const handler = this.handler;
    if (!handler) return false;
    const outcome = await handler({ ...result.message, inbox: entry });
    log.debug({ outcome, messageId: result.message.id }, "Telegram update handled");
    if (outcome === "deferred") return false;
    const large = ANSWERED.has(outcome) ? tooLarge(result.message.attachments, this.opts.maxDownloadBytes) : [];
    if (large.length > 0) {
      const speech = await this.opts.speechOf(result.message);
      await this.opts.notify(result.message, tooLargeNotice(large, this.opts.maxDownloadBytes, speech));
    }
    return true;
  }

  /** A button press goes to the press handler; presses are not deferred (the user can press again). */
  private async pressed(update: RawUpdate, log: Logger): Promise<boolean> {
    const parsed = this.opts.pressOf(update);
    if ("skip" in parsed) {
      log.debug({ reason: parsed.skip }, "Telegram callback_query skipped");
      return true;
    }
    const handler = this.pressHandler;
    if (!handler) {
      log.debug("button press while no press handler is set; dropped");
      return this.handler !== undefined;
    }
    await handler(parsed.press);
    return true;
  }
}

/** Rejects identity() when the channel stops before getMe answered; the update stays in the inbox. */
export class ChannelStoppedError extends Error {
  constructor() {
    super("the Telegram channel stopped");
    this.name = "ChannelStoppedError";
  }
}
