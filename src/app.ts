/**
 * The composition root: builds the shared services, then every channel and feature module from the
 * configuration, then the agent and the router, and owns the order in which they start and stop.
 */
import { Agent } from "./agent/agent.js";
import { createModel, llmSetupProblem, routeSdkWarnings } from "./agent/llm.js";
import { collectSecrets, featureSettings, type Config, type Modules } from "./config.js";
import { registerConsole } from "./console/index.js";
import type { TurnRunner } from "./core/turn.js";
import { describeLocalTime } from "./core/time.js";
import type { Channel, ChannelName } from "./core/types.js";
import { featureModules } from "./features/modules.js";
import { createFeatures, type RunningFeatures } from "./features/runtime.js";
import { ButtonActions, buttonMessages } from "./gateway/actions.js";
import { systemClock, type Clock } from "./core/clock.js";
import { publishCommandMenus } from "./gateway/command-menu.js";
import { OutboundService } from "./gateway/outbound-service.js";
import { Router } from "./gateway/router.js";
import { LanguagePreferences } from "./gateway/languages.js";
import { Translator } from "./infra/i18n/index.js";
import { ToolCatalog } from "./handlers/catalog.js";
import { createFilesystemHandler } from "./handlers/filesystem.js";
import { HandlerRegistry } from "./handlers/registry.js";
import { createSystemHandler } from "./handlers/system.js";
import { lockDataDir } from "./infra/data-dir-lock.js";
import { assertPortFree } from "./infra/http/port-check.js";
import { HttpServer } from "./infra/http/server.js";
import { createLogger, type Logger } from "./infra/log.js";
import { LogTail } from "./infra/log-tail.js";
import type { Store } from "./infra/store/types.js";
import { Workspaces } from "./infra/workspace.js";
import { createAccess, createChannels, llmReadiness, openGatewayStore, senderZone, storeStatus } from "./parts.js";
import { Replicas } from "./replicas.js";
import { Sandbox } from "./infra/sandbox/index.js";
import { startTracing } from "./infra/tracing.js";
import { ZonePreferences } from "./scheduler/zone-preferences.js";
import { SessionDirectory } from "./sessions/directory.js";
import { SessionHistory } from "./sessions/history.js";
import { ThinkingSettings } from "./sessions/thinking.js";
import { TurnLog } from "./sessions/turn-log.js";
import { channelModules } from "./channels/modules.js";

export interface GatewayOptions {
  /** Defaults to a logger built from config.log. */
  log?: Logger;
  /** The channel and feature modules to build from (default: the built-in lists). Load the config with the same. */
  modules?: Modules;
  /** The console's log tail; by default it taps the logger built here (none when `log` is given). */
  logTail?: LogTail;
  /**
   * Times what people see while a turn runs (typing, the acknowledgement), what the features wait for (an
   * approval's timeout) and the store's tallies (when the usage gathered in memory is written); the real clock when
   * absent.
   */
  clock?: Clock;
}

/** What create() settles before anything is built. */
type Start = { modules: Required<Modules>; secrets: string[]; logTail: LogTail | null; clock?: Clock };

/** The parts the gateway starts and stops, built by Gateway.create. */
interface Parts {
  config: Config;
  log: Logger;
  store: Store;
  http: HttpServer;
  channels: ReadonlyMap<ChannelName, Channel>;
  replicas: Replicas;
  features: RunningFeatures;
  router: Router;
  registry: HandlerRegistry;
  outbound: OutboundService;
  /** Releases the SQLite data dir's lock; null on Redis. */
  releaseDataDir: (() => Promise<void>) | null;
  /** Sends the traces still buffered and stops tracing; null when tracing is off. */
  stopTracing: (() => Promise<void>) | null;
}

export class Gateway {
  readonly config: Config;
  readonly log: Logger;
  readonly store: Store;
  readonly http: HttpServer;
  readonly router: Router;
  /** Every tool the model can call. */
  readonly registry: HandlerRegistry;
  /** This replica: its id, the channels' runners (under a lease on Redis where needed), its heartbeat. */
  readonly replicas: Replicas;
  readonly outbound: OutboundService;
  private stopping: Promise<void> | null = null;

  private constructor(private readonly parts: Parts) {
    ({ config: this.config, log: this.log, store: this.store, http: this.http, router: this.router } = parts);
    ({ registry: this.registry, replicas: this.replicas, outbound: this.outbound } = parts);
  }

  /** The objects a feature's create() returned (its engine, for a caller that drives it). */
  feature<P>(module: { name: string; create?(deps: never): P | Promise<P> }): P | undefined {
    return this.parts.features.partsOf(module.name) as P | undefined;
  }

  static async create(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
    const modules = { channels: opts.modules?.channels ?? channelModules, features: opts.modules?.features ?? featureModules };
    const secrets = collectSecrets(config, modules);
    const logTail = opts.logTail ?? (opts.log ? null : new LogTail());
    const log = opts.log ?? createLogger({ level: config.log.level, pretty: config.log.pretty, secrets, ...(logTail ? { tap: logTail.write } : {}) });
    routeSdkWarnings(log);
    const stopTracing = await startTracing();
    if (stopTracing) log.info({ endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT }, "sending traces over OTLP");
    // Before anything starts, so a port in use or a second gateway on the same data dir fails fast and says why.
    await assertPortFree(config.http.host, config.http.port);
    const releaseDataDir = config.store.url?.startsWith("redis")
      ? null
      : await lockDataDir(config.dataDir, (err) => log.error({ err }, "the data dir lock was lost"));
    try {
      return await Gateway.assemble({ config, modules, log, secrets, releaseDataDir, stopTracing, logTail, clock: opts.clock });
    } catch (err) {
      await releaseDataDir?.();
      throw err;
    }
  }

  /** Builds every part, lowest layer first: services, channels, features, then the agent and the router. */
  private static async assemble(start: Pick<Parts, "config" | "log" | "releaseDataDir" | "stopTracing"> & Start): Promise<Gateway> {
    const { config, modules, log, secrets, releaseDataDir, stopTracing, logTail, clock } = start;
    const store = await openGatewayStore(config, log, clock);
    const http = new HttpServer({ host: config.http.host, port: config.http.port, token: config.http.token, log });
    http.addReadinessCheck("store", () => storeStatus(store, secrets));
    const languages = new LanguagePreferences(store, new Translator(config.i18n.default));
    const channels = await createChannels(config, modules.channels, {
      store,
      log,
      http,
      speechOf: async (sender) => (sender ? languages.speechOf(sender) : languages.translator.speech()),
    });
    const replicas = Replicas.create({ config, store, log, channels, http });
    const channelOf = (name: ChannelName): Channel | undefined => channels.get(name);
    const outbound = new OutboundService({ config: config.outbound, store, log: log.child({ component: "outbound" }), channelOf });
    const registry = new HandlerRegistry({ log, defaultTimeoutMs: config.agent.toolTimeoutMs });
    const catalog = new ToolCatalog(registry);
    const [history, turnLog, thinking] = [new SessionHistory(store, log), new TurnLog(store), new ThinkingSettings(store)];
    const sessions = new SessionDirectory(store, log);
    registry.register(createSystemHandler({ catalog, thinking, turnLog, llm: config.llm }));
    registry.register(createFilesystemHandler());
    const actions = new ButtonActions(store, log.child({ component: "actions" }));
    const channelNames = modules.channels.map((module) => module.name);
    const speechOf = (person: { channel: ChannelName; userId: string; locale?: string | undefined }) =>
      languages.speechOf({ channel: person.channel, sender: { id: person.userId }, locale: person.locale });
    const access = createAccess({ config, store, log, channelNames, channelOf, outbound, actions, speechOf });
    const llmProblem = llmSetupProblem(config.llm);
    if (llmProblem) log.warn(`no language model configured: ${llmProblem}; only slash commands will work`);
    // The one late binding: features (the scheduler) run turns, and the agent is built from what features add.
    let agent: Agent | null = null;
    const turns: TurnRunner | null = llmProblem ? null : { runTurn: (input) => (agent as Agent).runTurn(input) };
    const zones = new ZonePreferences(store, config.agent.timezone);
    const workspaces = await Workspaces.prepare(config.dataDir);
    const features = await createFeatures(modules.features, (module) => featureSettings(config, module), {
      ...{ core: config, secrets, store, log, http, workspaces, outbound, channelOf, zones, access, registry, turns, history, directory: sessions },
      sandbox: await Sandbox.create(config.sandbox, log),
      buttons: buttonMessages(actions, outbound, channelOf),
      clock: clock ?? systemClock,
      channelNames,
      isOwner: (ctx) => access.isOwner(ctx.message.channel, ctx.message.sender.id),
      speechOf,
    });
    const agentDeps = { config, secrets, registry, catalog, history, turnLog, thinking, log, timezoneOf: senderZone(zones), ...features.turn };
    agent = llmProblem ? null : new Agent({ ...agentDeps, model: createModel(config.llm, { log: log.child({ component: "llm" }), clock }) });
    // Each model's state and the last call: a failed call shows until one succeeds. Without an LLM the gateway
    // is still useful (commands, the set-up message), so the LLM does not gate readiness.
    http.addReadinessCheck("llm", () => llmReadiness(llmProblem, agent), { gates: false });
    const router = new Router({ config, store, log, agent, llmProblem, access, commands: features.commands, afterReply: features.afterReply, replyInstead: features.replyInstead, channelOf, outbound, sessions, zones, languages, actions, workspaces, clock, ...(features.turn.agents ? { agents: features.turn.agents } : {}) });
    registerConsole({
      ...{ http, token: config.http.token, config, secrets, sessions, pairing: access.pairing, access: config.access, logTail },
      channels: () => [...replicas.runners].map(([name, runner]) => ({ name, ...runner.status() })),
      replicas: () => replicas.view(),
      models: () => agent?.modelStates() ?? [],
      history,
      resetSession: (key) => router.resetSession(key),
      featureRoutes: features.consoleRoutes,
    });
    return new Gateway({ config, log, store, http, channels, replicas, features, router, registry, outbound, releaseDataDir, stopTracing });
  }

  /** Starts the channels (which add their routes), then the features, then the HTTP server. Returns its base URL. */
  async start(): Promise<{ url: string; port: number }> {
    const { config, log, replicas, router, channels, outbound, features, http, store } = this.parts;
    await replicas.start();
    for (const runner of replicas.runners.values()) await runner.start(router.handle, router.handlePress);
    // In the background: a platform that is slow or down must not hold up the start (failures are logged).
    void publishCommandMenus(channels.values(), router.commands, config.access.owners, router.languages.translator, log);
    // Replies a previous run could not send go out now that the channels are up.
    await outbound.start();
    await features.start();
    const address = await http.start();
    // ICU sets up date formatting on its first use (~25 ms): now, rather than in the first message's turn.
    setImmediate(() => describeLocalTime(new Date(), config.agent.timezone));
    log.info({ url: address.url, channels: [...channels.keys()], store: store.backend, replica: replicas.id }, "switchboard is up");
    return address;
  }

  /** Graceful: stop taking messages, let running turns finish up to the grace period, then close everything. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    const { config, log, replicas, router, outbound, features, http, store, releaseDataDir, stopTracing } = this.parts;
    log.info("shutting down");
    const graceMs = config.sessions.shutdownGraceMs;
    await router.drain(graceMs);
    await features.stop(graceMs);
    await outbound.stop();
    await replicas.stopRunners();
    await replicas.stop();
    await http.stop();
    await store.close();
    await releaseDataDir?.();
    await stopTracing?.().catch((err: unknown) => log.warn({ err }, "could not send the last traces"));
    log.info("stopped");
  }
}
