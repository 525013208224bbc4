/**
 * The Discord channel: guild channels, threads, forum posts and DMs through one bot, on discord.js v14.
 * Inbound: the gateway connection hands over raw MESSAGE_CREATE payloads, the inbound filter turns them into
 * InboundMessages, and the router gets them without the gateway waiting for the turn. Outbound: REST.
 */
import { systemClock, type Clock } from "../../core/clock.js";
import { createHash } from "node:crypto";
import type { Store } from "../../infra/store/types.js";
import { MessageInbox } from "../inbox.js";
import { REST } from "discord.js";
import type { Logger } from "../../infra/log.js";
import {
  targetOf,
  type Attachment,
  type ButtonPressHandler,
  type Channel,
  type CommandMenu,
  type ChannelCapabilities,
  type ChannelStatus,
  type InboundHandler,
  type InboundMessage,
  type OutboundFile,
  type OutboundTarget,
  type LiveReply,
  type LiveReplyOptions,
  type SendTextOptions,
  type SentMessage,
} from "../../core/types.js";
import { downloadAttachment } from "./attachments.js";
import { DiscordCatchUp } from "./catch-up.js";
import { DEFAULT_API_URL, type DiscordConfig } from "./config.js";
import { GatewayConnection } from "./connection.js";
import { InboundFilter } from "./inbound.js";
import { DiscordLocales } from "./locales.js";
import { parseInteraction, SlashReplies } from "./interactions.js";
import { registerSlashCommands } from "./menu.js";
import type { DiscordDirectory } from "./normalize.js";
import { DiscordOutbound, MAX_MESSAGE_LENGTH } from "./send.js";
import { DiscordPreview } from "./live.js";
import { EditPreview, replyOptionsOf } from "../live-preview.js";
import { DEFAULT_THROTTLE, ThrottledLiveReply } from "../live-reply.js";

export interface DiscordChannelOptions {
  config: DiscordConfig & { token: string };
  log: Logger;
  /** Keeps messages until handled, so a deferred one is handed over again after a restart. */
  store: Store;
  /** The clock of the live reply's throttle; tests give one that runs faster than real time. */
  clock?: Clock;
}

const MIB = 1024 * 1024;

export class DiscordChannel implements Channel {
  readonly name = "discord" as const;
  readonly capabilities: ChannelCapabilities;
  readonly acceptsBots: boolean;
  /** One gateway session per bot: a second would receive every event again and spend the daily identify budget. */
  readonly singleConnection: string;
  private readonly apiUrl: string;
  private readonly rest: REST;
  private readonly outbound: DiscordOutbound;
  private readonly inbound: InboundFilter;
  private readonly connection: GatewayConnection;
  private handler: InboundHandler | undefined;
  private pressHandler: ButtonPressHandler | undefined;
  private readonly slashReplies = new SlashReplies();
  /** Registered again after each new session, so a start during an outage still gets its commands. */
  private menu: CommandMenu | undefined;
  private readonly inbox: MessageInbox;
  private readonly catchUp: DiscordCatchUp;
  private readonly locales: DiscordLocales;
  private readonly handling = new Set<Promise<unknown>>();

  constructor(private readonly opts: DiscordChannelOptions) {
    const { config, log } = opts;
    this.inbox = new MessageInbox(opts.store, "discord-inbox");
    this.locales = new DiscordLocales(opts.store, log);
    const botKey = createHash("sha256").update(config.token).digest("hex").slice(0, 16);
    this.singleConnection = `discord:${botKey}`;
    this.apiUrl = config.apiUrl ?? DEFAULT_API_URL;
    this.acceptsBots = config.allowBots;
    const maxUploadBytes = Math.floor(config.maxUploadMB * MIB);
    this.capabilities = {
      maxTextLength: MAX_MESSAGE_LENGTH,
      maxUploadBytes,
      // Edits and reactions serve the streamed preview and the acknowledgement.
      edits: true,
      draftStreaming: false,
      reactions: true,
      buttons: true,
      threads: true,
      typing: true,
      voice: "ogg-opus",
      streaming: config.streaming,
    };
    // Its own REST client, so sending survives the gateway client being replaced after a zombie connection.
    this.rest = restClient(this.apiUrl, config.token);
    this.catchUp = new DiscordCatchUp({ store: opts.store, key: botKey, rest: this.rest, log });
    this.outbound = new DiscordOutbound({ rest: this.rest, suppressEmbeds: config.suppressEmbeds, maxUploadBytes, slashReplies: this.slashReplies });
    this.inbound = new InboundFilter({ allowBots: config.allowBots, maxBotTurnsInARow: config.maxBotTurnsInARow, log });
    this.connection = new GatewayConnection({
      token: config.token,
      apiUrl: this.apiUrl,
      watchdogSilenceMs: config.watchdogSilenceMs,
      log,
      onMessage: (raw, directory) => this.receive(raw, directory),
      onNewSession: (directory) => this.track(this.catchUp.run((raw) => this.receive(raw, directory))),
      onInteraction: (raw, directory) => this.interact(raw, directory),
      onReady: () => this.track(this.registerMenu()),
    });
  }

  async start(onMessage: InboundHandler, onPress?: ButtonPressHandler): Promise<void> {
    if (this.handler) throw new Error("The Discord channel is already started");
    this.handler = onMessage;
    this.pressHandler = onPress;
    try {
      await this.connection.start();
    } catch (err) {
      this.handler = undefined;
      throw err;
    }
    this.track(this.inbox.replay(onMessage, this.opts.log));
  }

  async stop(): Promise<void> {
    this.handler = undefined;
    this.pressHandler = undefined;
    await this.connection.stop();
    await Promise.all(this.handling);
    await this.catchUp.close();
    this.rest.clearHashSweeper();
    this.rest.clearHandlerSweeper();
  }

  status(): ChannelStatus {
    const status = this.connection.status();
    const problem = this.inbound.contentProblem;
    return status.connected && problem ? { connected: true, detail: problem } : status;
  }

  sendText(to: OutboundTarget, text: string, opts: SendTextOptions = {}): Promise<SentMessage[]> {
    return this.outbound.sendText(to, text, opts);
  }

  sendFile(to: OutboundTarget, file: OutboundFile, opts: SendTextOptions = {}): Promise<SentMessage> {
    return this.outbound.sendFile(to, file, opts);
  }

  liveReply(to: OutboundTarget, opts: LiveReplyOptions): LiveReply | undefined {
    if (this.opts.config.streaming === "off") return undefined;
    const { log, clock = systemClock } = this.opts;
    return new ThrottledLiveReply(new EditPreview(new DiscordPreview(this.outbound, to, replyOptionsOf(opts)), log, { clock }), log, DEFAULT_THROTTLE, clock);
  }

  async acknowledge(message: InboundMessage): Promise<() => Promise<void>> {
    const emoji = this.opts.config.ackReaction;
    if (emoji === null) return async () => {};
    const to = targetOf(message);
    await this.outbound.react(to, message.platformMessageId, emoji);
    return () => this.outbound.react(to, message.platformMessageId, emoji, true);
  }

  /** Registers the slash commands now when connected, and again after each new session. */
  async setCommandMenu(menu: CommandMenu): Promise<void> {
    this.menu = menu;
    const application = this.connection.application();
    if (application) await registerSlashCommands(this.rest, application, menu, this.opts.config.slashCommands);
  }

  typing(to: OutboundTarget): Promise<void> {
    return this.outbound.typing(to);
  }

  download(attachment: Attachment, into: string): Promise<string> {
    return downloadAttachment(attachment, into, { apiUrl: this.apiUrl, maxBytes: Math.floor(this.opts.config.maxDownloadMB * MIB) });
  }

  /** Runs on the gateway's event: hands the message over and returns at once. */
  private receive(raw: unknown, directory: DiscordDirectory): void {
    const handler = this.handler;
    if (!handler) return;
    const message = this.inbound.accept(raw, directory);
    if (!message) return;
    this.catchUp.note(message);
    this.track(this.locales.withLocale(message).then((known) => this.inbox.handOver(known, handler, this.opts.log)));
  }

  /** A button press or a slash command, from the gateway's event: handed over at once. */
  private interact(raw: unknown, directory: DiscordDirectory): void {
    const { log } = this.opts;
    const parsed = parseInteraction(raw, this.rest, directory, this.slashReplies);
    if ("skip" in parsed) {
      log.debug({ reason: parsed.skip }, "Discord interaction skipped");
      return;
    }
    const { sender, locale } = "press" in parsed ? parsed.press : parsed.command;
    this.track(this.locales.note(sender.id, locale));
    if ("press" in parsed) {
      const handler = this.pressHandler;
      if (handler) this.track(handler(parsed.press));
      return;
    }
    const handler = this.handler;
    if (!handler) return;
    const { command, acknowledge } = parsed;
    // The acknowledgement must reach Discord within 3 s, before the command runs.
    this.track(
      acknowledge()
        .catch((err: unknown) => log.warn({ err, messageId: command.id }, "could not acknowledge a slash command"))
        .then(() => this.inbox.handOver(command, handler, log))
        .then(async (outcome) => {
          if (outcome === "deferred") return;
          if (await this.outbound.dropSlashAnswer(command.platformMessageId)) log.info({ messageId: command.id, outcome }, "a slash command got no answer; its placeholder was removed");
        })
        .catch((err: unknown) => log.warn({ err, messageId: command.id }, "could not remove an unanswered slash command's placeholder")),
    );
  }

  private async registerMenu(): Promise<void> {
    const application = this.connection.application();
    if (!this.menu || !application) return;
    await registerSlashCommands(this.rest, application, this.menu, this.opts.config.slashCommands).catch((err: unknown) =>
      this.opts.log.warn({ err }, "could not register the Discord slash commands; typed commands still work"),
    );
  }

  private track(work: Promise<unknown>): void {
    this.handling.add(work);
    void work.finally(() => this.handling.delete(work));
  }
}

/**
 * The REST client retries nothing: a 429 answer, a 5xx and a network failure are classified (SendError) and the
 * one outbound policy (src/gateway/outbound-service.ts) retries them. Its pacing stays: waiting before a request while a
 * known bucket is empty sends nothing, so it is not a retry. The client announces such a wait as "rateLimited"
 * with the same object it then hands to rejectOnRateLimit, which tells the two apart.
 */
function restClient(api: string, token: string): REST {
  const pacing = new WeakSet<object>();
  const rest = new REST({ api, retries: 0, rejectOnRateLimit: (data) => !pacing.has(data) }).setToken(token);
  rest.on("rateLimited", (data) => pacing.add(data));
  return rest;
}
