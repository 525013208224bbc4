/**
 * One configured MCP server kept connected: connects in the background, lists its tools, follows
 * notifications/tools/list_changed, and after a failure or a crash reconnects with exponential backoff until
 * stopped. Its last known definition survives disconnections (and restarts, through the DefinitionStore).
 */
import { describeError, LoginRequiredError, McpCallError } from "./errors.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";
import { isStdio, type McpConfig, type McpServerConfig } from "./config.js";
import type { DefinitionStore, ServerDefinition } from "./definitions.js";
import { callTool, fetchDefinition, getPrompt, readResource, type CallOptions } from "./protocol.js";
import type { ToolCallResult } from "./results.js";
import { openSession, type WrapCommand } from "./transport.js";

export type ServerState = "connecting" | "connected" | "failed" | "stopped";

export interface ServerStatus {
  state: ServerState;
  /** The transport that answered, once connected. */
  transport?: string;
  /** The server's process id, for a connected stdio server. */
  pid?: number;
  /** Why the last attempt failed or the connection ended. */
  error?: string;
  /**
   * The server's last stderr lines before it failed (stdio). For the operator (log, doctor, CLI) only: a
   * server may print anything there, so it stays out of /readyz and of what the model reads.
   */
  stderr?: string;
  /** When the next attempt starts (ISO), while waiting to reconnect. */
  retryAt?: string;
  /** The server wants an OAuth login no owner has done (error says how). */
  needsLogin?: boolean;
}

export interface ConnectionOptions {
  id: string;
  server: McpServerConfig;
  limits: McpConfig;
  store: DefinitionStore;
  log: Logger;
  wrapCommand?: WrapCommand;
  /** OAuth for a remote server that asks for it (made once per connection, so that refreshes are shared). */
  authProvider?: (log: Logger) => OAuthClientProvider;
  /** The fetch of Streamable HTTP requests. */
  fetch?: FetchLike;
  /** Called when the definition or the state changed. */
  onChange?: () => void;
}

/** The stderr lines kept to explain a server that died. */
const STDERR_TAIL = 5;

export class ServerConnection {
  readonly id: string;
  private definitionValue: ServerDefinition | undefined;
  private statusValue: ServerStatus = { state: "connecting" };
  private client: Client | undefined;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly stderrTail: string[] = [];
  private saving: Promise<void> = Promise.resolve();
  private readonly log: Logger;
  private readonly authProvider: OAuthClientProvider | undefined;
  /** Ends the current wait before a reconnect (a login just finished). */
  private waiting: AbortController | undefined;

  constructor(private readonly opts: ConnectionOptions) {
    this.id = opts.id;
    this.log = opts.log.child({ mcpServer: opts.id });
    this.authProvider = isStdio(opts.server) ? undefined : opts.authProvider?.(this.log);
  }

  /** Reconnects now instead of after the backoff (new credentials), if waiting to reconnect. */
  wake(): void {
    this.waiting?.abort();
  }

  get definition(): ServerDefinition | undefined {
    return this.definitionValue;
  }

  get status(): ServerStatus {
    return this.statusValue;
  }

  /** Loads the saved definition, then connects in the background (never waits on the server). */
  async start(): Promise<void> {
    this.definitionValue = await this.opts.store.load(this.id);
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.client?.close().catch((err: unknown) => this.log.warn({ err }, "MCP server did not close cleanly"));
    await this.loop;
    this.setStatus({ state: "stopped" });
  }

  call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallResult> {
    return this.request((client, opts) => callTool(client, tool, args, opts), signal);
  }

  readResource(uri: string, signal?: AbortSignal): Promise<ToolCallResult> {
    return this.request((client, opts) => readResource(client, uri, opts), signal);
  }

  getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<ToolCallResult> {
    return this.request((client, opts) => getPrompt(client, name, args, opts), signal);
  }

  /** One request over the live session, within this server's time limit and the output cap. */
  private async request(send: (client: Client, opts: CallOptions) => Promise<ToolCallResult>, signal: AbortSignal | undefined): Promise<ToolCallResult> {
    const { client } = this;
    if (!client || this.statusValue.state !== "connected") {
      if (this.statusValue.needsLogin) throw new McpCallError(this.statusValue.error ?? new LoginRequiredError(this.id).message, "failed");
      const why = this.statusValue.error ? `: ${this.statusValue.error}` : "";
      throw new McpCallError(`the MCP server "${this.id}" is not connected right now (${this.statusValue.state}${why})`, "failed");
    }
    const { limits, server } = this.opts;
    try {
      return await send(client, { timeoutMs: server.timeoutMs ?? limits.callTimeoutMs, maxOutputChars: limits.maxOutputChars, signal });
    } catch (err) {
      // An HTTP session notices a dead server only when a request fails: closing it starts the reconnect loop.
      if (err instanceof McpCallError && err.sessionLost) await client.close().catch(() => undefined);
      throw err;
    }
  }

  private async run(): Promise<void> {
    const { limits } = this.opts;
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      // A server that wanted a login still does until one happens: what callers are told stays that.
      const { needsLogin, error } = this.statusValue;
      this.setStatus({ state: "connecting", ...(needsLogin ? { needsLogin, error } : {}) });
      const closed = await this.connectOnce();
      if (this.stopping.signal.aborted) return;
      if (closed.connected) failures = 0;
      const delay = Math.min(limits.reconnectInitialMs * 2 ** failures, limits.reconnectMaxMs);
      failures += 1;
      const stderr = this.stderrTail.splice(0).join(" / ");
      const retryAt = new Date(Date.now() + delay).toISOString();
      this.setStatus({ state: "failed", error: closed.error, ...(stderr ? { stderr } : {}), retryAt, ...(closed.needsLogin ? { needsLogin: true } : {}) });
      this.log.warn({ error: closed.error, stderr, retryInMs: delay }, closed.connected ? "MCP server disconnected" : "MCP server failed to connect");
      this.waiting = new AbortController();
      await abortableDelay(delay, AbortSignal.any([this.stopping.signal, this.waiting.signal]));
      this.waiting = undefined;
    }
  }

  /** Connects and stays until the connection ends; resolves with why it ended. */
  private async connectOnce(): Promise<{ connected: boolean; error: string; needsLogin?: boolean }> {
    const { server, limits } = this.opts;
    let session;
    try {
      session = await openSession(server, {
        id: this.id,
        timeoutMs: limits.connectTimeoutMs,
        wrapCommand: this.opts.wrapCommand,
        signal: this.stopping.signal,
        onStderr: (line) => this.noteStderr(line),
        ...(this.authProvider ? { authProvider: this.authProvider } : {}),
        ...(this.opts.fetch ? { fetch: this.opts.fetch } : {}),
      });
    } catch (err) {
      return { connected: false, error: describeError(err), ...(err instanceof LoginRequiredError ? { needsLogin: true } : {}) };
    }
    const { client } = session;
    const ended = new Promise<string>((resolve) => {
      client.onclose = () => resolve("the connection closed");
    });
    this.client = client;
    try {
      if (this.stopping.signal.aborted) throw new Error("stopped");
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refresh(client));
      const definition = await fetchDefinition(client, this.id, limits.connectTimeoutMs);
      this.stderrTail.length = 0;
      await this.adopt(definition, { state: "connected", transport: session.transport, ...(session.pid ? { pid: session.pid } : {}) });
      this.log.info({ transport: session.transport, tools: this.definitionValue?.tools.length }, "MCP server connected");
    } catch (err) {
      await client.close().catch(() => undefined);
      this.client = undefined;
      return { connected: false, error: describeError(err) };
    }
    const error = await ended;
    this.client = undefined;
    return { connected: true, error };
  }

  private async refresh(client: Client): Promise<void> {
    try {
      await this.adopt(await fetchDefinition(client, this.id, this.opts.limits.connectTimeoutMs));
      this.log.info({ tools: this.definitionValue?.tools.length }, "MCP server tools changed");
    } catch (err) {
      this.log.warn({ err: describeError(err) }, "MCP server tool list could not be refreshed; keeping the last known one");
    }
  }

  /** Saves the definition, then shows it (with the new status, if any) in one change. */
  private async adopt(definition: ServerDefinition, status?: ServerStatus): Promise<void> {
    // One save at a time: a tools/list_changed can arrive while the first listing is being saved.
    this.saving = this.saving
      .then(() => this.opts.store.save(definition))
      .catch((err: unknown) => this.log.warn({ err }, "MCP server definition could not be saved to the data dir"));
    await this.saving;
    this.definitionValue = definition;
    if (status) this.statusValue = status;
    this.opts.onChange?.();
  }

  private noteStderr(line: string): void {
    this.log.debug({ stderr: line }, "MCP server stderr");
    this.stderrTail.push(line.slice(0, 300));
    if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
  }

  private setStatus(status: ServerStatus): void {
    this.statusValue = status;
    this.opts.onChange?.();
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
