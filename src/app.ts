/**
 * The composition root: builds every part from the configuration, lowest layer first, and owns the order in
 * which they start and stop. Nothing is bound late: the channels exist before anything that sends through them.
 */
import { AccessControl } from "./access/access-control.js";
import { pairingCommands } from "./access/commands.js";
import { Agent } from "./agent/agent.js";
import { createModel, llmSetupProblem, routeSdkWarnings } from "./agent/llm.js";
import { channelModules } from "./channels/modules.js";
import { channelSettings, collectSecrets, enabledChannels, type ChannelModules, type Config } from "./config.js";
import { registerConsole } from "./console/index.js";
import { describeLocalTime } from "./core/time.js";
import type { Channel, ChannelName } from "./core/types.js";
import { publishCommandMenus } from "./gateway/command-menu.js";
import { OutboundService } from "./gateway/outbound.js";
import { ownerPairingNotifier } from "./gateway/pairing-notice.js";
import { ButtonActions } from "./gateway/actions.js";
import { Router } from "./gateway/router.js";
import { ToolCatalog } from "./handlers/catalog.js";
import { createFilesystemHandler, filesystemTools } from "./handlers/filesystem.js";
import { createImChannelHandler } from "./handlers/im-channel.js";
import { HandlerRegistry } from "./handlers/registry.js";
import { createScheduledHandler } from "./handlers/scheduled.js";
import { setUpSkills } from "./handlers/skills.js";
import { shellTools } from "./handlers/shell.js";
import { createSystemHandler, systemTools } from "./handlers/system.js";
import { Sandbox } from "./sandbox/index.js";
import { createMcpHandler, mcpPromptSection } from "./handlers/mcp.js";
import { createMcpManager, mcpReadiness, type McpManager } from "./mcp/index.js";
import { redactText } from "./infra/config/secrets.js";
import { assertPortFree } from "./infra/http/port-check.js";
import { HttpServer, type ComponentStatus } from "./infra/http/server.js";
import { lockDataDir } from "./infra/data-dir-lock.js";
import { createLogger, type Logger } from "./infra/log.js";
import { LogTail } from "./infra/log-tail.js";
import { createStore } from "./infra/store/index.js";
import { prepareWorkspacesRoot } from "./infra/workspace.js";
import { newReplicaId } from "./infra/cluster/replica-id.js";
import { Replicas } from "./replicas.js";
import type { Store } from "./infra/store/types.js";
import { createMedia, type Media } from "./media/index.js";
import { registerReceiptRoutes } from "./media/receipts-routes.js";
import { registerTaskRoutes, Scheduler, schedulerCommands } from "./scheduler/index.js";
import { ZonePreferences } from "./scheduler/zone-preferences.js";
import type { CommandContext } from "./core/commands.js";
import { createMemoryHandler } from "./handlers/memory.js";
import { createProfileHandler, timezoneRecordOf } from "./handlers/profile.js";
import { createMemory, createTurnRecall, memoryCommands, type Memory } from "./memory/index.js";
import { SessionDirectory } from "./sessions/directory.js";
import { SessionHistory } from "./sessions/history.js";
import { BUNDLED_SKILLS_DIR, userSkillsDir, type Skills } from "./skills/index.js";

export interface GatewayOptions {
  /** Defaults to a logger built from config.log. */
  log?: Logger;
  /** The channel modules to build from; defaults to src/channels/modules.ts. Load the config with the same list. */
  modules?: ChannelModules;
  /** The console's log tail; by default it taps the logger built here (none when `log` is given). */
  logTail?: LogTail;
}

/** The parts the gateway starts and stops, built by Gateway.create. */
interface Parts {
  config: Config;
  log: Logger;
  store: Store;
  http: HttpServer;
  channels: ReadonlyMap<ChannelName, Channel>;
  replicas: Replicas;
  media: Media;
  skills: Skills;
  scheduler: Scheduler | null;
  /** null when config.memory.enabled is off. */
  memory: Memory | null;
  /** null when no MCP server is configured. */
  mcp: McpManager | null;
  router: Router;
  registry: HandlerRegistry;
  /** Releases the SQLite data dir's lock; null on Redis. */
  releaseDataDir: (() => Promise<void>) | null;
  outbound: OutboundService;
}

export class Gateway {
  readonly config: Config;
  readonly log: Logger;
  readonly store: Store;
  readonly http: HttpServer;
  readonly router: Router;
  /** Every tool the model can call. */
  readonly registry: HandlerRegistry;
  /** null when config.scheduler.enabled is off. */
  readonly scheduler: Scheduler | null;
  private readonly channels: ReadonlyMap<ChannelName, Channel>;
  /** This replica: its id, the channels' runners (under a lease on Redis where needed), its heartbeat. */
  readonly replicas: Replicas;
  private readonly media: Media;
  private readonly skills: Skills;
  /** null when no MCP server is configured. */
  readonly mcp: McpManager | null;
  /** null when config.memory.enabled is off. */
  readonly memory: Memory | null;
  readonly outbound: OutboundService;
  private readonly releaseDataDir: (() => Promise<void>) | null;
  private stopping: Promise<void> | null = null;

  private constructor(parts: Parts) {
    ({ config: this.config, log: this.log, store: this.store, http: this.http, router: this.router, registry: this.registry } = parts);
    ({ scheduler: this.scheduler, channels: this.channels, media: this.media, skills: this.skills, outbound: this.outbound } = parts);
    this.releaseDataDir = parts.releaseDataDir;
    this.replicas = parts.replicas;
    this.memory = parts.memory;
    this.mcp = parts.mcp;
  }

  static async create(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
    const modules = opts.modules ?? channelModules;
    const secrets = collectSecrets(config, modules);
    const logTail = opts.logTail ?? (opts.log ? null : new LogTail());
    const log = opts.log ?? createLogger({ level: config.log.level, pretty: config.log.pretty, secrets, ...(logTail ? { tap: logTail.write } : {}) });
    routeSdkWarnings(log);
    // Before anything starts, so a port in use or a second gateway on the same data dir fails fast and says why.
    await assertPortFree(config.http.host, config.http.port);
    const releaseDataDir = config.store.url?.startsWith("redis")
      ? null
      : await lockDataDir(config.dataDir, (err) => log.error({ err }, "the data dir lock was lost"));
    try {
      return await Gateway.assemble({ config, modules, log, secrets, releaseDataDir, logTail });
    } catch (err) {
      await releaseDataDir?.();
      throw err;
    }
  }

  /** Builds every part, lowest layer first. */
  private static async assemble(start: {
    config: Config;
    modules: ChannelModules;
    log: Logger;
    secrets: string[];
    releaseDataDir: (() => Promise<void>) | null;
    logTail: LogTail | null;
  }): Promise<Gateway> {
    const { config, modules, log, secrets, releaseDataDir, logTail } = start;
    const store = await createStore({ url: config.store.url, dataDir: config.dataDir, log, keyPrefix: config.store.keyPrefix });
    const workspacesRoot = await prepareWorkspacesRoot(config.dataDir);
    const http = new HttpServer({ host: config.http.host, port: config.http.port, token: config.http.token, log });
    http.addReadinessCheck("store", () => storeStatus(store, secrets));
    const channels = await createChannels(config, modules, { store, log, http });
    const replicas = new Replicas(newReplicaId(config.replica.id ?? undefined), { store, settings: config.replica, log, channels });
    for (const [name, runner] of replicas.runners) {
      http.addReadinessCheck(`channel:${name}`, () => {
        const { connected, detail } = runner.status();
        return { ok: connected, ...(detail ? { detail } : {}) };
      });
    }
    http.addReadinessCheck("replica", () => replicas.readiness(), { gates: false });
    const channelOf = (name: ChannelName): Channel | undefined => channels.get(name);
    const outbound = new OutboundService({ config: config.outbound, store, log: log.child({ component: "outbound" }), channelOf });

    const registry = new HandlerRegistry({ log, defaultTimeoutMs: config.agent.toolTimeoutMs });
    const catalog = new ToolCatalog(registry);
    registry.register("system", createSystemHandler({ catalog, store, llm: config.llm }), systemTools);
    registry.register("filesystem", createFilesystemHandler(), filesystemTools);
    const sandbox = await Sandbox.create(config.sandbox, log);
    const shell = shellTools(sandbox);
    registry.register("shell", shell.handler, shell.tools);
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
      sandbox,
    });

    const mcp = await createMcpManager({
      config: config.mcp,
      dataDir: config.dataDir,
      log,
      // A `sandbox: true` server runs in bubblewrap with its cwd read-only and the network only if granted by its id.
      wrapCommand: (spec) => sandbox.wrap({ command: spec.command, args: spec.args, env: spec.env, skillDir: spec.cwd, networkName: spec.id }),
    });
    if (mcp) {
      // Only the Anthropic API takes images inside tool results; OpenAI-compatible ones would get base64 as text.
      const vision = config.llm.vision && config.llm.provider === "anthropic";
      const { handler, tools } = createMcpHandler(mcp, { vision });
      registry.register("mcp", handler, tools);
      for (const server of mcp.list()) {
        // A server that is down does not make the gateway unready, as with the LLM; its error may quote secrets.
        http.addReadinessCheck(
          `mcp:${server.id}`,
          () => {
            const status = mcpReadiness(mcp)[`mcp:${server.id}`] ?? { ok: false, detail: "unknown" };
            return { ok: status.ok, detail: redactText(status.detail, secrets) };
          },
          { gates: false },
        );
      }
    }

    const llmProblem = llmSetupProblem(config.llm);
    if (llmProblem) log.warn(`no language model configured: ${llmProblem}; only slash commands will work`);
    const model = `${config.llm.provider} ${config.llm.model}`;
    const zones = new ZonePreferences(store, config.agent.timezone);
    const memory = config.memory.enabled ? createMemory({ store, config: config.memory, log, timezones: timezoneRecordOf(zones) }) : null;
    if (memory) {
      const memoryTools = createMemoryHandler(memory.engine);
      registry.register("memory", memoryTools.handler, memoryTools.tools);
      const profileTools = createProfileHandler(memory.profiles);
      registry.register("profile", profileTools.handler, profileTools.tools);
    }
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
          ...(mcp ? { mcpSection: (permissions) => mcpPromptSection(mcp, permissions) } : {}),
          ...(memory ? { memory: createTurnRecall(memory.engine, memory.profiles, { fromCompaction: config.memory.fromCompaction }) } : {}),
          timezoneOf: async (message) =>
            (await zones.resolve({ channel: message.channel, chatId: message.chat.id, userId: message.sender.id })).zone,
        });

    // The LLM as the last model call found it, not as configured: a failed call shows until one succeeds. Without
    // an LLM the gateway is still useful (commands, the set-up message), so the LLM does not gate readiness.
    http.addReadinessCheck("llm", () => llmReadiness(llmProblem, model, agent?.lastModelCall ?? null), { gates: false });

    const actions = new ButtonActions(store, log.child({ component: "actions" }));
    const notifyOwners = ownerPairingNotifier({ owners: config.access.owners, channelOf, outbound, actions, log: log.child({ component: "pairing" }) });
    const access = new AccessControl({
      config: config.access,
      store,
      channels: modules.map((module) => module.name),
      webAuthenticated: config.http.token !== null,
      onPairingRequest: notifyOwners,
    });
    const scheduler = config.scheduler.enabled
      ? new Scheduler({
          config: config.scheduler,
          defaultTimezone: config.agent.timezone,
          store,
          log,
          agent,
          workspacesRoot,
          outbound,
        })
      : null;
    if (scheduler) {
      const scheduled = createScheduledHandler(scheduler, (channel, chatType) => channelOf(channel)?.capabilities.replyWindowMinutes?.[chatType]);
      registry.register("scheduled", scheduled.handler, scheduled.tools);
      registerTaskRoutes(http, scheduler);
    }
    const isOwner = (ctx: CommandContext) => access.isOwner(ctx.message.channel, ctx.message.sender.id);
    const taskCommands = scheduler ? schedulerCommands(scheduler, { isOwner }) : [];
    const sessions = new SessionDirectory(store, log);
    const router = new Router({
      config,
      store,
      log,
      agent,
      llmProblem,
      access,
      commands: [...pairingCommands(access), ...taskCommands, ...(memory ? memoryCommands(memory, { isOwner }) : [])],
      channelOf,
      outbound,
      sessions,
      zones,
      actions,
    });
    registerConsole({
      http,
      token: config.http.token,
      config,
      secrets,
      channels: () => [...replicas.runners].map(([name, runner]) => ({ name, ...runner.status() })),
      replicas: () => replicas.view(),
      sessions,
      history: new SessionHistory(store, log),
      resetSession: (key) => router.resetSession(key),
      scheduler,
      skills,
      pairing: access.pairing,
      access: config.access,
      receipts: media.ledger,
      logTail,
      ...(mcp
        ? {
            mcpServers: async () =>
              mcp.list().map((server) => ({
                name: server.id,
                status: server.status.state,
                tools: server.definition?.tools.map((tool) => tool.name) ?? [],
              })),
          }
        : {}),
    });
    return new Gateway({ config, log, store, http, channels, replicas, media, skills, scheduler, memory, mcp, router, registry, outbound, releaseDataDir });
  }

  /** Starts the channels (which add their routes), then the HTTP server. Returns the server's base URL. */
  async start(): Promise<{ url: string; port: number }> {
    await this.replicas.start();
    for (const runner of this.replicas.runners.values()) await runner.start(this.router.handle, this.router.handlePress);
    // In the background: a platform that is slow or down must not hold up the start (failures are logged).
    void publishCommandMenus(this.channels.values(), this.router.commands, this.config.access.owners, this.log);
    // Replies a previous run could not send go out now that the channels are up.
    await this.outbound.start();
    // After the channels: reminders that came due while the gateway was down are delivered right away.
    await this.scheduler?.start();
    // Servers connect in the background: a slow one never holds up the gateway.
    await this.mcp?.start();
    const address = await this.http.start();
    this.media.start();
    // ICU sets up date formatting on its first use (~25 ms): now, rather than in the first message's turn.
    setImmediate(() => describeLocalTime(new Date(), this.config.agent.timezone));
    this.log.info({ url: address.url, channels: [...this.channels.keys()], store: this.store.backend, replica: this.replicas.id }, "switchboard is up");
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
    for (const [name, runner] of this.replicas.runners) {
      await runner.stop().catch((err: unknown) => this.log.error({ err, channel: name }, "channel did not stop cleanly"));
    }
    await this.replicas.stop();
    await this.http.stop();
    await this.skills.close();
    await this.mcp?.stop();
    await this.memory?.engine.settled();
    await this.store.close();
    await this.releaseDataDir?.();
    this.log.info("stopped");
  }
}

function llmReadiness(problem: string | null, model: string, last: Agent["lastModelCall"]): ComponentStatus {
  if (problem) return { ok: false, detail: problem };
  if (!last) return { ok: true, detail: `${model}, not called yet` };
  if (last.ok) return { ok: true, detail: `${model}, last call ok at ${last.at.toISOString()}` };
  return { ok: false, detail: `${model}, last call failed at ${last.at.toISOString()} (error id ${last.errorId ?? "?"})` };
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
async function createChannels(config: Config, modules: ChannelModules, deps: { store: Store; log: Logger; http: HttpServer }): Promise<Map<ChannelName, Channel>> {
  const channels = new Map<ChannelName, Channel>();
  for (const module of enabledChannels(config, modules)) {
    const settings = channelSettings(config, module);
    channels.set(module.name, await module.create({ ...deps, settings, core: config, log: deps.log.child({ channel: module.name }) }));
  }
  return channels;
}
