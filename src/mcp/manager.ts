/**
 * Every configured MCP server, kept connected in the background. The gateway starts it without waiting on any
 * server, asks it for what to show the model (last known definitions included) and for tool calls, and stops
 * it (closing sessions, killing stdio children) when it stops.
 */
import { EventEmitter } from "node:events";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";
import { budgetWarning, sectionTokens } from "./budget.js";
import { isStdio, type McpConfig, type McpServerConfig } from "./config.js";
import { ServerConnection, type ServerStatus } from "./connection.js";
import { DefinitionStore, mcpDefinitionsDir, type ServerDefinition } from "./definitions.js";
import { mcpCalls } from "../infra/metrics.js";
import { McpCallError } from "./errors.js";
import { renderMcpSection } from "./render.js";
import type { ToolCallResult } from "./results.js";
import type { WrapCommand } from "./transport.js";
import type { OAuthKit } from "./oauth/index.js";

export interface McpManagerOptions {
  config: McpConfig;
  dataDir: string;
  log: Logger;
  /** Runs `sandbox: true` stdio servers inside the sandbox; without it such servers are refused. */
  wrapCommand?: WrapCommand;
  /** OAuth logins of remote servers that ask for one; without it such servers fail with their 401. */
  oauth?: OAuthKit;
  /** The fetch of Streamable HTTP requests (the address guard's). */
  fetch?: FetchLike;
}

export interface ServerView {
  id: string;
  /** The configured name, if any. */
  name?: string;
  config: McpServerConfig;
  status: ServerStatus;
  definition: ServerDefinition | undefined;
}

/** Emits "change" when a server's state or tools change. */
export class McpManager extends EventEmitter {
  private readonly connections = new Map<string, ServerConnection>();
  private lastWarnedTokens = 0;

  constructor(private readonly opts: McpManagerOptions) {
    super();
    const store = new DefinitionStore(mcpDefinitionsDir(opts.dataDir));
    for (const [id, server] of Object.entries(opts.config.servers)) {
      if (!server.enabled) continue;
      const onChange = (): void => {
        this.emit("change", id);
      };
      const { oauth } = opts;
      const authProvider = oauth && !isStdio(server) ? (log: Logger) => oauth.connectionProvider(id, server, log) : undefined;
      this.connections.set(
        id,
        new ServerConnection({ id, server, limits: opts.config, store, log: opts.log, wrapCommand: opts.wrapCommand, onChange, authProvider, ...(opts.fetch ? { fetch: opts.fetch } : {}) }),
      );
    }
    this.on("change", () => this.checkBudget());
  }

  /** The enabled servers. */
  get size(): number {
    return this.connections.size;
  }

  /** Reads the last known definitions, then connects every server in the background. */
  async start(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.start()));
    this.checkBudget();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.stop()));
  }

  /** Reconnects `id` now if it is waiting to (its credentials changed). */
  reconnect(id: string): void {
    this.connections.get(id)?.wake();
  }

  list(): ServerView[] {
    return [...this.connections.keys()].map((id) => this.get(id) as ServerView);
  }

  get(id: string): ServerView | undefined {
    const connection = this.connections.get(id);
    const config = this.opts.config.servers[id];
    if (!connection || !config) return undefined;
    return { id, ...(config.name ? { name: config.name } : {}), config, status: connection.status, definition: connection.definition };
  }

  /** Calls a tool of a connected server; throws McpCallError when it cannot complete. */
  async call(id: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallResult> {
    try {
      const result = await this.connectionOf(id).call(tool, args, signal);
      mcpCalls.inc({ server: id, outcome: result.isError ? "tool_error" : "ok" });
      return result;
    } catch (err) {
      mcpCalls.inc({ server: id, outcome: err instanceof McpCallError ? err.reason : "failed" });
      throw err;
    }
  }

  async readResource(id: string, uri: string, signal?: AbortSignal): Promise<ToolCallResult> {
    return this.connectionOf(id).readResource(uri, signal);
  }

  async getPrompt(id: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<ToolCallResult> {
    return this.connectionOf(id).getPrompt(name, args, signal);
  }

  private connectionOf(id: string): ServerConnection {
    const connection = this.connections.get(id);
    if (!connection) throw new McpCallError(`no MCP server is configured as "${id}"`, "failed");
    return connection;
  }

  /** The longest a call to any server may take, for the tool that makes calls. */
  maxCallTimeoutMs(): number {
    return Math.max(this.opts.config.callTimeoutMs, ...Object.values(this.opts.config.servers).map((s) => s.timeoutMs ?? 0));
  }

  /** Full exposure for a sender who sees every server whose tools are known: the figure the budget is about. */
  promptTokens(): number {
    return sectionTokens(renderMcpSection(this.list().filter((server) => server.definition)));
  }

  /** Warns once per new size when the full section passes the budget. */
  private checkBudget(): void {
    const tokens = this.promptTokens();
    const warning = budgetWarning(tokens, this.opts.config.promptTokenBudget);
    if (!warning || tokens === this.lastWarnedTokens) return;
    this.lastWarnedTokens = tokens;
    this.opts.log.warn({ tokens, budget: this.opts.config.promptTokenBudget }, warning);
  }
}
