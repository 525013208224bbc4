/**
 * The one place that wires Switchboard together: builds every part from the configuration and owns the order in
 * which they start and stop.
 */
import { join } from "node:path";
import { AccessControl } from "./access/access-control.js";
import { pairingCommands } from "./access/commands.js";
import { Agent } from "./agent/agent.js";
import { createModel, llmSetupProblem, routeSdkWarnings } from "./agent/llm.js";
import { Router } from "./channels/router.js";
import type { Channel, ChannelName } from "./channels/types.js";
import { channelModules } from "./channels/modules.js";
import { enabledChannels } from "./config/load.js";
import type { Config } from "./config/schema.js";
import { collectSecrets, redactText } from "./config/secrets.js";
import { ToolCatalog } from "./handlers/catalog.js";
import { createFilesystemHandler, filesystemTools } from "./handlers/filesystem.js";
import { createMcpHandler, mcpPromptSection } from "./handlers/mcp.js";
import { createScheduledHandler } from "./handlers/scheduled.js";
import { HandlerRegistry } from "./handlers/registry.js";
import { createSystemHandler, systemTools } from "./handlers/system.js";
import { registerReceiptRoutes } from "./http/receipts.js";
import { HttpServer, type ReadinessReport } from "./http/server.js";
import { createImChannel, type ImChannel } from "./im/index.js";
import { createLogger, type Logger } from "./log.js";
import { createMcpManager, mcpReadiness, type McpManager, type WrapCommand } from "./mcp/index.js";
import { registerTaskRoutes, Scheduler, schedulerCommands } from "./scheduler/index.js";
import { BUNDLED_SKILLS_DIR, createSkills, userSkillsDir, type Skills } from "./skills/index.js";
import { createStore } from "./store/index.js";
import type { Store } from "./store/types.js";

export interface GatewayOptions {
  /** Defaults to a logger built from config.log. */
  log?: Logger;
  /** Runs `sandbox: true` MCP servers inside the sandbox (src/sandbox); without it they are refused. */
  wrapMcpCommand?: WrapCommand;
}

export class Gateway {
  readonly http: HttpServer;
  readonly router: Router;
  /** null when config.scheduler.enabled is off. */
  readonly scheduler: Scheduler | null;
  private readonly channels = new Map<ChannelName, Channel>();
  private stopping: Promise<void> | null = null;
  private readonly secrets: string[];

  private constructor(
    readonly config: Config,
    readonly log: Logger,
    readonly store: Store,
    readonly registry: HandlerRegistry,
    readonly skills: Skills,
    readonly agent: Agent | null,
    private readonly llmProblem: string | null,
    private readonly im: ImChannel,
    /** null when no MCP server is configured. */
    readonly mcp: McpManager | null,
  ) {
    this.secrets = collectSecrets(config);
    this.http = new HttpServer({
      host: config.http.host,
      port: config.http.port,
      token: config.http.token,
      log,
      readiness: () => this.readiness(),
    });
    registerReceiptRoutes(this.http, im.ledger);
    const access = new AccessControl({ config: config.access, store });
    this.scheduler = this.createScheduler();
    const taskCommands = this.scheduler
      ? schedulerCommands(this.scheduler, { isOwner: (ctx) => access.isOwner(ctx.message.channel, ctx.message.sender.id) })
      : [];
    this.router = new Router({
      config,
      store,
      log,
      agent,
      llmProblem,
      access,
      commands: [...pairingCommands(access), ...taskCommands],
      channelOf: (name) => this.channels.get(name),
    });
    this.createChannels();
  }

  static async create(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
    const log = opts.log ?? createLogger({ level: config.log.level, pretty: config.log.pretty, secrets: collectSecrets(config) });
    routeSdkWarnings(log);
    const store = await createStore({ url: config.store.url, dataDir: config.dataDir, log });

    const registry = new HandlerRegistry({ log, defaultTimeoutMs: config.agent.toolTimeoutMs });
    const catalog = new ToolCatalog(registry);
    registry.register("system", createSystemHandler(catalog), systemTools);
    registry.register("filesystem", createFilesystemHandler(), filesystemTools);
    // Chat tools and the media step reach the channels through the gateway, which is built last.
    const built: { gateway?: Gateway } = {};
    const im = createImChannel({ config, store, log, channelOf: (name) => built.gateway?.channels.get(name) });
    registry.register("im_channel", im.handler, im.tools);

    const skills = await createSkills({
      config: config.skills,
      bundledDir: BUNDLED_SKILLS_DIR,
      userDir: userSkillsDir(config.dataDir),
      log,
      registry,
      store,
    });

    const mcp = await createMcpManager({ config: config.mcp, dataDir: config.dataDir, log, wrapCommand: opts.wrapMcpCommand });
    if (mcp) {
      // Only the Anthropic API takes images inside tool results; OpenAI-compatible ones would get base64 as text.
      const vision = config.llm.vision && config.llm.provider === "anthropic";
      const { handler, tools } = createMcpHandler(mcp, { vision });
      registry.register("mcp", handler, tools);
    }

    const llmProblem = llmSetupProblem(config.llm);
    if (llmProblem) log.warn(`no language model configured: ${llmProblem}; only slash commands will work`);
    const agent = llmProblem
      ? null
      : new Agent({
          config,
          model: createModel(config.llm),
          registry,
          catalog,
          store,
          log,
          skillsCatalog: () => skills.catalog(),
          ...(mcp ? { mcpSection: (permissions) => mcpPromptSection(mcp, permissions) } : {}),
          equippedSkills: (sessionKey) => skills.equippedSection(sessionKey),
          prepareMedia: (input, turnLog) => im.media.prepare(input, turnLog),
          timezoneOf: async (message) => {
            const scope = { channel: message.channel, chatId: message.chat.id, userId: message.sender.id };
            return (await built.gateway?.scheduler?.zones.resolve(scope))?.zone;
          },
        });
    built.gateway = new Gateway(config, log, store, registry, skills, agent, llmProblem, im, mcp);
    return built.gateway;
  }

  /** Reminders and scheduled tasks: their tools, their admin routes, and runs delivered through the channels. */
  private createScheduler(): Scheduler | null {
    const { config } = this;
    if (!config.scheduler.enabled) return null;
    const scheduler = new Scheduler({
      config: config.scheduler,
      defaultTimezone: config.agent.timezone,
      store: this.store,
      log: this.log,
      agent: this.agent,
      workspacesRoot: join(config.dataDir, "workspaces"),
      channelOf: (name) => this.channels.get(name),
    });
    const scheduled = createScheduledHandler(scheduler);
    this.registry.register("scheduled", scheduled.handler, scheduled.tools);
    registerTaskRoutes(this.http, scheduler);
    return scheduler;
  }

  private createChannels(): void {
    for (const name of enabledChannels(this.config)) {
      const module = channelModules[name];
      const deps = { config: this.config, store: this.store, log: this.log.child({ channel: name }), http: this.http };
      this.channels.set(name, module.create(deps));
    }
  }

  /** Starts the channels (which add their routes), then the HTTP server. Returns the server's base URL. */
  async start(): Promise<{ url: string; port: number }> {
    for (const channel of this.channels.values()) await channel.start(this.router.handle);
    // After the channels: reminders that came due while the gateway was down are delivered right away.
    await this.scheduler?.start();
    // Servers connect in the background: a slow one never holds up the gateway.
    await this.mcp?.start();
    const address = await this.http.start();
    this.im.start();
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
    this.im.stop();
    for (const channel of this.channels.values()) {
      await channel.stop().catch((err: unknown) => this.log.error({ err, channel: channel.name }, "channel did not stop cleanly"));
    }
    await this.http.stop();
    await this.skills.close();
    await this.mcp?.stop();
    await this.store.close();
    this.log.info("stopped");
  }

  private async readiness(): Promise<ReadinessReport> {
    const { llmProblem } = this;
    const components: ReadinessReport["components"] = {};
    try {
      await this.store.ping();
      components.store = { ok: true, detail: this.store.backend };
    } catch (err) {
      // The message may quote the store URL: keep its password out of this unauthenticated endpoint.
      components.store = { ok: false, detail: redactText(`${this.store.backend}: ${(err as Error).message}`, this.secrets) };
    }
    components.llm = llmProblem ? { ok: false, detail: llmProblem } : { ok: true, detail: `${this.config.llm.provider} ${this.config.llm.model}` };
    for (const [name, channel] of this.channels) {
      const status = channel.status();
      components[`channel:${name}`] = { ok: status.connected, ...(status.detail ? { detail: status.detail } : {}) };
    }
    for (const [name, c] of Object.entries(this.mcp ? mcpReadiness(this.mcp) : {})) {
      components[name] = { ok: c.ok, detail: redactText(c.detail, this.secrets) };
    }
    // Without an LLM or an MCP server the gateway is still useful, so only store and channels gate readiness.
    const ready = Object.entries(components).every(([name, c]) => c.ok || name === "llm" || name.startsWith("mcp:"));
    return { ready, components };
  }
}
