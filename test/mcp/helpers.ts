/**
 * Real MCP servers for the tests: the reference "everything" server from npm (stdio, Streamable HTTP and the
 * old HTTP+SSE transport) and the fault server in test/fakes/mcp-server.ts, with a manager on a fresh data dir.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mcpConfigSchema, type McpConfig } from "../../src/mcp/config.js";
import { McpManager, type McpManagerOptions } from "../../src/mcp/manager.js";
import { captureLog, type LogRecord } from "../helpers/captured-log.js";
import { eventually } from "../helpers/wait.js";

export const EVERYTHING_SERVER = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const FAULT_SERVER = fileURLToPath(new URL("../fakes/mcp-server.ts", import.meta.url));

export function everythingStdio(): { command: string; args: string[] } {
  return { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] };
}

export function faultServer(mode = "normal"): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", "tsx", FAULT_SERVER, mode] };
}

export interface HttpServerProcess {
  url: string;
  close(): Promise<void>;
}

/** The everything server listening on 127.0.0.1 in "streamableHttp" (at /mcp) or "sse" (at /sse) mode. */
export async function startEverythingHttp(mode: "streamableHttp" | "sse", port?: number): Promise<HttpServerProcess> {
  port ??= await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  try {
    await eventually(() => /listening|running/i.test(stderr) || child.exitCode !== null, `the everything server (${mode}) to listen`, 30_000);
  } catch (err) {
    // Not left running when it never said it listens.
    await stopChild(child);
    throw err;
  }
  if (child.exitCode !== null) throw new Error(`the everything server exited: ${stderr}`);
  return { url: `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`, close: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

export interface TestManager {
  manager: McpManager;
  config: McpConfig;
  dataDir: string;
  logs: LogRecord[];
}

/** A manager over `servers` (config input) with fast reconnects, on a fresh data dir unless one is given. */
export async function makeManager(
  input: Record<string, unknown>,
  opts: { dataDir?: string; secrets?: string[] } & Partial<Pick<McpManagerOptions, "wrapCommand">> = {},
): Promise<TestManager> {
  const config = mcpConfigSchema.parse({ reconnectInitialMs: 50, reconnectMaxMs: 400, ...input });
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), "switchboard-mcp-")));
  const { log, logs } = captureLog(opts.secrets ?? []);
  const manager = new McpManager({ config, dataDir, log, wrapCommand: opts.wrapCommand });
  return { manager, config, dataDir, logs };
}

export function connected(manager: McpManager, id: string, timeoutMs = 30_000): Promise<unknown> {
  return eventually(() => manager.get(id)?.status.state === "connected", `MCP server ${id} to connect`, timeoutMs);
}
