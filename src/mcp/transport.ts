/**
 * Opening a session with one MCP server: a stdio child (optionally wrapped by the sandbox) or a remote server over
 * Streamable HTTP, falling back to the older HTTP+SSE transport when the server answers the new one with a 4xx,
 * as the MCP specification's backwards-compatibility section describes.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isStdio, type HttpServerConfig, type McpServerConfig, type StdioServerConfig } from "./config.js";

/** The command a stdio server would run, before any sandbox wraps it. */
export interface CommandSpec {
  /** The server's id: a sandbox grants it the network by this name (sandbox.network.<id>). */
  id: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** Rewrites a command to run inside the sandbox (src/sandbox provides it; the gateway passes it in). */
export type WrapCommand = (spec: CommandSpec) => { command: string; args: string[]; env: Record<string, string> };

export interface OpenOptions {
  id: string;
  timeoutMs: number;
  /** Gives up connecting (the gateway is stopping). */
  signal?: AbortSignal;
  wrapCommand?: WrapCommand;
  /** Lines the server writes to stderr (stdio only). */
  onStderr?: (line: string) => void;
  /** Sends (and refreshes) OAuth tokens to a Streamable HTTP server that asks for them. */
  authProvider?: OAuthClientProvider;
  /** The fetch of Streamable HTTP requests (the address guard's). */
  fetch?: FetchLike;
}

export interface OpenSession {
  client: Client;
  /** "stdio", "streamable-http" or "sse": which transport answered. */
  transport: string;
  /** The child's process id (stdio). */
  pid?: number;
}

const CLIENT_INFO = { name: "switchboard", version: "0.1.0" };

export class McpSetupError extends Error {
  override name = "McpSetupError";
}

/** Connects and completes the handshake, or throws with the reason (closing whatever was started). */
export async function openSession(server: McpServerConfig, opts: OpenOptions): Promise<OpenSession> {
  if (isStdio(server)) {
    const transport = stdioTransport(server, opts);
    const client = await connect(transport, opts);
    return { client, transport: "stdio", ...(transport.pid ? { pid: transport.pid } : {}) };
  }
  return openHttp(server, opts);
}

async function openHttp(server: HttpServerConfig, opts: OpenOptions): Promise<OpenSession> {
  const url = new URL(server.url);
  const requestInit = { headers: server.headers };
  if (server.transport === "sse") return { client: await connect(new SSEClientTransport(url, { requestInit }), opts), transport: "sse" };
  try {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit,
      ...(opts.authProvider ? { authProvider: opts.authProvider } : {}),
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
    return { client: await connect(transport, opts), transport: "streamable-http" };
  } catch (err) {
    // A 401 is a server that wants authorization, not one that only speaks the old transport.
    const oldServer = err instanceof StreamableHTTPError && err.code !== undefined && err.code >= 400 && err.code < 500 && err.code !== 401;
    if (server.transport !== "auto" || !oldServer) throw err;
    return { client: await connect(new SSEClientTransport(url, { requestInit }), opts), transport: "sse" };
  }
}

function stdioTransport(server: StdioServerConfig, opts: OpenOptions): StdioClientTransport {
  // A minimal environment (the SDK's PATH, HOME, ...) plus the server's own: the gateway's secrets stay here.
  const spec: CommandSpec = { id: opts.id, command: server.command, args: server.args, env: { ...getDefaultEnvironment(), ...server.env }, cwd: server.cwd };
  let run: { command: string; args: string[]; env: Record<string, string> } = spec;
  if (server.sandbox) {
    if (!opts.wrapCommand) {
      throw new McpSetupError(
        `MCP server "${opts.id}" is configured with sandbox: true, but no sandbox is available; it was not started ` +
          "(set sandbox: false only if you trust it to run unconfined)",
      );
    }
    run = opts.wrapCommand(spec);
  }
  const transport = new StdioClientTransport({ ...run, cwd: server.cwd, stderr: "pipe" });
  const onStderr = opts.onStderr;
  if (onStderr) {
    let pending = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) onStderr(line);
    });
  }
  return transport;
}

async function connect(transport: Transport, opts: OpenOptions): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: opts.timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) });
    return client;
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
}
