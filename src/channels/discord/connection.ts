/**
 * The gateway connection: one discord.js Client at a time, logged in and ready. discord.js reconnects and
 * resumes on its own; this class adds what it lacks: a first-connect that tells configuration problems (token,
 * intents) from outages, background retries with backoff, and a watchdog that replaces a silent (zombie)
 * client with a fresh one. Messages already handled that come again after a resume or a reconnect are dropped
 * by the router's dedup.
 */
import { once } from "node:events";
import { Client, Events, GatewayDispatchEvents, GatewayIntentBits, Options, Partials, Status } from "discord.js";
import type { Logger } from "../../infra/log.js";
import type { ChannelStatus } from "../../core/types.js";
import { closeCodeProblem, loginProblem } from "./diagnostics.js";
import { clientDirectory } from "./directory.js";
import type { DiscordDirectory } from "./normalize.js";
import { Watchdog } from "./watchdog.js";

export interface GatewayConnectionOptions {
  token: string;
  apiUrl: string;
  watchdogSilenceMs: number;
  log: Logger;
  /** Each MESSAGE_CREATE payload, unvalidated, in gateway order. Called synchronously: must not block or throw. */
  onMessage(raw: unknown, directory: DiscordDirectory): void;
  /** Called after each new session is ready (not after a resume): what was posted meanwhile is not replayed. */
  onNewSession(directory: DiscordDirectory): void;
  /** Each INTERACTION_CREATE payload (button presses, slash commands), unvalidated; the same rules as onMessage. */
  onInteraction(raw: unknown, directory: DiscordDirectory): void;
  /** After each successful connect (a new session): the application id is known. */
  onReady?(): void;
}

const READY_TIMEOUT_MS = 60_000;
const DESTROY_TIMEOUT_MS = 5_000;
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 60_000;

const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent];

export class GatewayConnection {
  private client: Client | undefined;
  private readyClient: Client | undefined;
  private connecting = false;
  private stopped = true;
  private fatal: string | undefined;
  private lastError: string | undefined;
  private lastEventAt = 0;
  private retryDelayMs = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly watchdog: Watchdog;

  constructor(private readonly opts: GatewayConnectionOptions) {
    this.watchdog = new Watchdog(opts.watchdogSilenceMs, () => this.lastActivity(), (silentMs) => this.onSilence(silentMs));
  }

  /** Resolves once connected, or once an outage is being retried; rejects when Discord refuses the configuration. */
  async start(): Promise<void> {
    this.stopped = false;
    this.fatal = undefined;
    const problem = await this.connect();
    if (problem) throw new Error(problem);
    this.watchdog.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watchdog.stop();
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.readyClient = undefined;
    if (client) await destroyWithin(client, DESTROY_TIMEOUT_MS);
  }

  status(): ChannelStatus {
    if (this.fatal) return { connected: false, detail: this.fatal };
    const client = this.readyClient;
    if (client?.isReady() && client.ws.shards.first()?.status === Status.Ready) return { connected: true };
    if (this.stopped) return { connected: false, detail: "not started" };
    return { connected: false, detail: this.lastError ? `reconnecting after: ${this.lastError}` : "connecting" };
  }

  /** The bot's application (for its commands), once connected; with guild ids it is in. */
  application(): { id: string; guildIds: string[] } | undefined {
    const client = this.readyClient;
    const id = client?.application?.id ?? client?.user?.id;
    return client && id ? { id, guildIds: [...client.guilds.cache.keys()] } : undefined;
  }

  /** One attempt. Returns a configuration problem; an outage schedules the next attempt instead. */
  private async connect(): Promise<string | undefined> {
    const client = this.createClient();
    this.client = client;
    this.connecting = true;
    this.lastEventAt = Date.now();
    try {
      await loginReady(client, this.opts.token, READY_TIMEOUT_MS);
      if (this.client !== client) return undefined;
      this.readyClient = client;
      this.retryDelayMs = RETRY_MIN_MS;
      this.lastError = undefined;
      this.opts.log.info({ bot: client.user?.tag, guilds: client.guilds.cache.size }, "connected to the Discord gateway");
      const directory = clientDirectory(client);
      if (directory) this.opts.onNewSession(directory);
      this.opts.onReady?.();
      return undefined;
    } catch (err) {
      if (this.client === client) this.client = undefined;
      void destroyWithin(client, DESTROY_TIMEOUT_MS);
      this.fatal ??= loginProblem(err);
      if (this.fatal || this.stopped) return this.fatal;
      this.lastError = (err as Error).message;
      this.opts.log.warn({ err, retryInMs: this.retryDelayMs }, "could not connect to the Discord gateway; retrying");
      this.scheduleRetry();
      return undefined;
    } finally {
      this.connecting = false;
    }
  }

  private scheduleRetry(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.reconnect(), this.retryDelayMs);
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
  }

  private async reconnect(): Promise<void> {
    if (this.stopped || this.fatal || this.connecting) return;
    const problem = await this.connect();
    if (problem) this.opts.log.error(problem);
  }

  /** The newest sign of life of the ready client: a dispatch or an acknowledged heartbeat. */
  private lastActivity(): number | undefined {
    const client = this.readyClient;
    if (!client || this.connecting || this.stopped || this.fatal) return undefined;
    return Math.max(this.lastEventAt, client.ws.shards.first()?.lastPingTimestamp ?? 0);
  }

  private onSilence(silentMs: number): void {
    const client = this.readyClient;
    if (!client) return;
    this.opts.log.warn({ silentMs }, "the Discord gateway went silent (zombie connection); reconnecting with a new session");
    this.client = undefined;
    this.readyClient = undefined;
    void destroyWithin(client, DESTROY_TIMEOUT_MS);
    void this.reconnect();
  }

  private createClient(): Client {
    const client = new Client({
      intents: INTENTS,
      // DM channels are not in any cache; without this discord.js drops their messages.
      partials: [Partials.Channel],
      rest: { api: this.opts.apiUrl },
      // Messages are read from the raw payloads; discord.js's message cache would only hold memory.
      makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
    });
    const { log } = this.opts;
    const current = () => this.client === client;
    containPacketErrors(client, log);
    client.on(Events.Error, (err) => log.warn({ err }, "discord.js error"));
    client.on(Events.ShardError, (err) => current() && log.warn({ err }, "Discord gateway socket error"));
    client.on(Events.ShardReconnecting, () => current() && log.info("Discord gateway connection lost; discord.js is reconnecting"));
    client.on(Events.ShardResume, (_shard, replayed) => {
      if (!current()) return;
      this.lastEventAt = Date.now();
      log.info({ replayed }, "Discord gateway session resumed");
    });
    client.on(Events.ShardDisconnect, (event) => current() && this.onFinalClose(event.code));
    const relay = (event: GatewayDispatchEvents, what: string, deliver: (raw: unknown, directory: DiscordDirectory) => void) =>
      client.ws.on(event, (raw: unknown) => {
        if (!current()) return;
        this.lastEventAt = Date.now();
        const directory = clientDirectory(client);
        if (!directory) return;
        try {
          deliver(raw, directory);
        } catch (err) {
          log.error({ err }, `a Discord ${what} could not be processed`);
        }
      });
    relay(GatewayDispatchEvents.MessageCreate, "message", (raw, directory) => this.opts.onMessage(raw, directory));
    relay(GatewayDispatchEvents.InteractionCreate, "interaction", (raw, directory) => this.opts.onInteraction(raw, directory));
    return client;
  }

  /** discord.js gave up on the connection (it does so only for close codes that a retry cannot fix). */
  private onFinalClose(code: number): void {
    const problem = closeCodeProblem(code) ?? `Discord closed the gateway for good (code ${code})`;
    this.fatal = problem;
    // During a connect attempt the failed login reports it; afterwards nobody else will.
    if (!this.connecting) this.opts.log.error({ code }, problem);
  }
}

/** Logs in and waits for every guild to arrive (the clientReady event), within a deadline. */
async function loginReady(client: Client, token: string, timeoutMs: number): Promise<void> {
  const controller = new AbortController();
  const ready = once(client, Events.ClientReady, { signal: controller.signal });
  ready.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the Discord gateway was not ready within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([client.login(token).then(() => ready), deadline]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** client.destroy() waits for a close handshake that a dead peer never answers: do not wait longer than `ms`. */
async function destroyWithin(client: Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([client.destroy().catch(() => undefined), late]);
  clearTimeout(timer);
}

/**
 * discord.js trusts gateway payloads: a malformed one makes its packet handler throw inside the socket's message
 * callback, where nothing catches it (an unhandled rejection). Contain such failures to the one packet.
 */
function containPacketErrors(client: Client, log: Logger): void {
  const manager = client.ws as unknown as { handlePacket?: (packet?: { t?: unknown }, shard?: unknown) => boolean };
  if (typeof manager.handlePacket !== "function") {
    log.warn("this discord.js version has no WebSocketManager.handlePacket; malformed gateway events are not contained");
    return;
  }
  const handle = manager.handlePacket.bind(manager);
  manager.handlePacket = (packet, shard) => {
    try {
      return handle(packet, shard);
    } catch (err) {
      log.warn({ err, event: packet?.t }, "discord.js could not process a gateway event; skipped");
      return true;
    }
  };
}
