/**
 * The composition root: builds every part from the configuration, lowest layer first, and owns the order in
 * which they start and stop. Nothing is bound late: the channels exist before anything that sends through them.
 */
import { join } from "node:path";
import { AccessControl } from "./access/access-control.js";
import { pairingCommands } from "./access/commands.js";
import { Agent } from "./agent/agent.js";
import { createModel, llmSetupProblem, routeSdkWarnings } from "./agent/llm.js";
import { channelModules } from "./channels/modules.js";
import { channelSettings, collectSecrets, enabledChannels, type ChannelModules, type Config } from "./config.js";
import type { Channel, ChannelName } from "./core/types.js";
import { OutboundService } from "./gateway/outbound.js";
import { Router } from "./gateway/router.js";
import { ToolCatalog } from "./handlers/catalog.js";
import { createFilesystemHandler, filesystemTools } from "./handlers/filesystem.js";
import { createImChannelHandler } from "./handlers/im-channel.js";
import { HandlerRegistry } from "./handlers/registry.js";
import { createScheduledHandler } from "./handlers/scheduled.js";
import { setUpSkills } from "./handlers/skills.js";
import { createSystemHandler, systemTools } from "./handlers/system.js";
import { redactText } from "./infra/config/secrets.js";
import { HttpServer, type ComponentStatus } from "./infra/http/server.js";
import { createLogger, type Logger } from "./infra/log.js";
import { createStore } from "./infra/store/index.js";
import type { Store } from "./infra/store/types.js";
import { createMedia, type Media } from "./media/index.js";
import { registerReceiptRoutes } from "./media/receipts-routes.js";
import { registerTaskRoutes, Scheduler, schedulerCommands } from "./scheduler/index.js";
import { ZonePreferences } from "./scheduler/zone-preferences.js";
import { BUNDLED_SKILLS_DIR, userSkillsDir, type Skills } from "./skills/index.js";

export interface GatewayOptions {
  /** Defaults to a logger built from config.log. */
  log?: Logger;
  /** The channel modules to build from; defaults to src/channels/modules.ts. Load the config with the same list. */
  modules?: ChannelModules;
}

/** The parts the gateway starts and stops, built by Gateway.create. */
interface Parts {
  config: Config;
  log: Logger;
  store: Store;
  http: HttpServer;
  channels: ReadonlyMap<ChannelName, Channel>;
  media: Media;
  skills: Skills;
  scheduler: Scheduler | null;
  router: Router;
  outbound: OutboundService;
}

export class Gateway {
  readonly config: Config;
  readonly log: Logger;
  readonly store: Store;
  readonly http: HttpServer;
  readonly router: Router;
  /** null when config.scheduler.enabled is off. */
  readonly scheduler: Scheduler | null;
  private readonly channels: ReadonlyMap<ChannelName, Channel>;
  private readonly media: Media;
  private readonly skills: Skills;
  readonly outbound: OutboundService;
  private stopping: Promise<void> | null = null;

  private constructor(parts: Parts) {
    ({ config: this.config, log: this.log, store: this.store, http: this.http, router: this.router } = parts);
    ({ scheduler: this.scheduler, channels: this.channels, media: this.media, skills: this.skills, outbound: this.outbound } = parts);
  }

  static async create(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
    const modules = opts.modules ?? channelModules;
    const secrets = collectSecrets(config, modules);
    const log = opts.log ?? createLogger({ level: config.log.level, pretty: config.log.pretty, secrets });
    routeSdkWarnings(log);
    const store = await createStore({ url: config.store.url, dataDir: config.dataDir, log });
    const http = new HttpServer({ host: config.http.host, port: config.http.port, token: config.http.token, log });
    http.addReadinessCheck("store", () => storeStatus(store, secrets));
    const channels = createChannels(config, modules, { store, log, http });
    for (const [name, channel] of channels) {
      http.addReadinessCheck(`channel:${name}`, () => {
        const { connected, detail } = channel.status();
        return { ok: connected, ...(detail ? { detail } : {}) };
      });
    }
    const channelOf = (name: ChannelName): Channel | undefined => channels.get(name);
    const outbound = new OutboundService({ config: config.outbound, store, log: log.child({ component: "outbound" }), channelOf });

    const registry = new HandlerRegistry({ log, defaultTimeoutMs: config.agent.toolTimeoutMs });
    const catalog = new ToolCatalog(registry);
    registry.register("system", createSystemHandler(catalog), systemTools);
    registry.register("filesystem", createFilesystemHandler(), filesystemTools);
    const media = createMedia({ config, secrets, store, log, channelOf, outbound });
    const imChannel = createImChannelHandler({ media, channelOf, store, log });
    registry.register("im_channel", imChannel.handler, imChannel.tools);
    registerReceiptRoutes(http, media.ledger);
    const skills = await setUpSkills({
      config: config.skills,
      bundledDir: BUNDLED_SKILLS_DIR,
      userDir: userSkillsDir(config.dataDir),
      log,
      registry,
      store,
    });

    const llmProblem = llmSetupProblem(config.llm);
    if (llmProblem) log.warn(`no language model configured: ${llmProblem}; only slash commands will work`);
    // Without an LLM the gateway is still useful (commands, setup message), so the LLM does not gate readiness.
    const llmStatus = llmProblem ? { ok: false, detail: llmProblem } : { ok: true, detail: `${config.llm.provider} ${config.llm.model}` };
    http.addReadinessCheck("llm", () => llmStatus, { gates: false });
    const zones = new ZonePreferences(store, config.agent.timezone);
    const agent = llmProblem
      ? null
      : new Agent({
          config,
          secrets,
          model: createModel(config.llm),
          registry,
          catalog,
          store,
          log,
          skillsCatalog: () => skills.catalog(),
          equippedSkills: (sessionKey) => skills.equippedSection(sessionKey),
          prepareMedia: (input, turnLog) => media.inbound.prepare(input, turnLog),
          timezoneOf: async (message) =>
            (await zones.resolve({ channel: message.channel, chatId: message.chat.id, userId: message.sender.id })).zone,
        });

    const access = new AccessControl({ config: config.access, store, channels: modules.map((module) => module.name) });
    const scheduler = config.scheduler.enabled
      ? new Scheduler({
          config: config.scheduler,
          defaultTimezone: config.agent.timezone,
          store,
          log,
          agent,
          workspacesRoot: join(config.dataDir, "workspaces"),
          outbound,
        })
      : null;
    if (scheduler) {
      const scheduled = createScheduledHandler(scheduler);
      registry.register("scheduled", scheduled.handler, scheduled.tools);
      registerTaskRoutes(http, scheduler);
    }
    const taskCommands = scheduler
      ? schedulerCommands(scheduler, { isOwner: (ctx) => access.isOwner(ctx.message.channel, ctx.message.sender.id) })
      : [];
    const router = new Router({
      config,
      store,
      log,
      agent,
      llmProblem,
      access,
      commands: [...pairingCommands(access), ...taskCommands],
      channelOf,
      outbound,
    });
    return new Gateway({ config, log, store, http, channels, media, skills, scheduler, router, outbound });
  }

  /** Starts the channels (which add their routes), then the HTTP server. Returns the server's base URL. */
  async start(): Promise<{ url: string; port: number }> {
    for (const channel of this.channels.values()) await channel.start(this.router.handle);
    // Replies a previous run could not send go out now that the channels are up.
    await this.outbound.start();
    // After the channels: reminders that came due while the gateway was down are delivered right away.
    await this.scheduler?.start();
    const address = await this.http.start();
    this.media.start();
    this.log.info({ url: address.url, channels: [...this.channels.keys()], store: this.store.backend }, "switchboard is up");
    return address;
  }

  /** Graceful: stop taking messages, let running turns finish up to the grace period, then close everything. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.log.info("shutting down");
    await this.scheduler?.stop(this.config.sessions.shutdownGraceMs);
    await this.router.drain(this.config.sessions.shutdownGraceMs);
    await this.outbound.stop();
    this.media.stop();
    for (const channel of this.channels.values()) {
      await channel.stop().catch((err: unknown) => this.log.error({ err, channel: channel.name }, "channel did not stop cleanly"));
    }
    await this.http.stop();
    await this.skills.close();
    await this.store.close();
    this.log.info("stopped");
  }
}

/** The store's answer to /readyz; its error may quote the store URL, so the password is kept out. */
async function storeStatus(store: Store, secrets: readonly string[]): Promise<ComponentStatus> {
  try {
    await store.ping();
    return { ok: true, detail: store.backend };
  } catch (err) {
    return { ok: false, detail: redactText(`${store.backend}: ${(err as Error).message}`, secrets) };
  }
}

/** One Channel per enabled module, built from its own settings section. */
function createChannels(config: Config, modules: ChannelModules, deps: { store: Store; log: Logger; http: HttpServer }): Map<ChannelName, Channel> {
  const channels = new Map<ChannelName, Channel>();
  for (const module of enabledChannels(config, modules)) {
    const settings = channelSettings(config, module);
    channels.set(module.name, module.create({ ...deps, settings, core: config, log: deps.log.child({ channel: module.name }) }));
  }
  return channels;
}
