/** `switchboard mcp list | tools SERVER | call SERVER TOOL [JSON]`: the configured servers, seen from the shell. */
import type { Command } from "commander";
import { isStdio, type HttpServerConfig, type McpConfig } from "./config.js";
import { DefinitionStore, mcpDefinitionsDir, type ServerDefinition } from "./definitions.js";
import { renderMcpSection } from "./render.js";
import { resultText } from "./results.js";
import type { OpenSession, WrapCommand } from "./transport.js";
import type { OAuthKit } from "./oauth/index.js";

export interface McpCliSetup {
  config: McpConfig;
  dataDir: string;
  /** Blanks configured secrets in what the commands print. */
  redact: (text: string) => string;
  wrapCommand?: WrapCommand;
}

export interface McpCliDeps {
  /** Called when a command runs, after the program has parsed its global options (--config). */
  setup(): McpCliSetup;
  /** The OAuth logins, over the gateway's store (closed by `close`). */
  openOAuth(): Promise<{ kit: OAuthKit; close(): Promise<void> }>;
  out?: (line: string) => void;
}

export function registerMcpCommands(program: Command, deps: McpCliDeps): void {
  const write = deps.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const mcp = program.command("mcp").description("list the MCP servers, show their tools, call one, log in to one");

  mcp
    .command("list")
    .description("list the configured MCP servers and the tools last seen on each")
    .action(async () => {
      const setup = deps.setup();
      const out = (line: string): void => write(setup.redact(line));
      const store = new DefinitionStore(mcpDefinitionsDir(setup.dataDir));
      const servers = Object.entries(setup.config.servers);
      if (servers.length === 0) out("No MCP servers are configured (mcp.servers).");
      for (const [id, server] of servers) {
        const where = "command" in server ? `stdio: ${[server.command, ...server.args].join(" ")}` : `http: ${server.url}`;
        const flags = [`risk ${server.risk}`, server.ownersOnly ? "owners only" : "", server.enabled ? "" : "disabled"].filter(Boolean);
        const known = await store.load(id);
        const tools = known ? `${known.tools.length} tool(s) as of ${known.fetchedAt}` : "tools not known yet";
        out(`${id} (${flags.join(", ")}) ${where}; ${tools}`);
      }
    });

  mcp
    .command("tools")
    .argument("<server>", "the server's id")
    .description("connect to a server and show its tools as the model sees them")
    .action(async (id: string) => {
      const setup = deps.setup();
      await live(setup, id, write, async (_session, definition) =>
        renderMcpSection([{ id, ...(setup.config.servers[id]?.name ? { name: setup.config.servers[id].name } : {}), status: { state: "connected" }, definition }]) ?? "",
      );
    });

  mcp
    .command("call")
    .argument("<server>", "the server's id")
    .argument("<tool>", "the tool's name")
    .argument("[json]", "the arguments as a JSON object", "{}")
    .description("connect to a server and call one of its tools")
    .action(async (id: string, tool: string, json: string) => {
      const setup = deps.setup();
      const args = parseArguments(json);
      if (typeof args === "string") return fail(write, args);
      const { callTool } = await import("./protocol.js");
      await live(setup, id, write, async (session) => {
        const server = setup.config.servers[id];
        const timeoutMs = server?.timeoutMs ?? setup.config.callTimeoutMs;
        const result = await callTool(session.client, tool, args, { timeoutMs, maxOutputChars: setup.config.maxOutputChars });
        if (result.isError) process.exitCode = 1;
        return `${result.isError ? "The tool reported an error:\n" : ""}${resultText(result)}`;
      });
    });

  mcp
    .command("login")
    .argument("<server>", "the id of a remote (url) server that asks for OAuth")
    .description("start an OAuth login: prints the link to open; the running gateway completes it when the browser comes back")
    .action(async (id: string) => {
      const setup = deps.setup();
      await withOAuth(setup, id, deps, write, async (kit, server) => {
        const url = await kit.startLogin(id, server);
        return [
          `Open this link in a browser to log in to the MCP server "${id}":`,
          url.toString(),
          "The gateway must be running: the login comes back to it and finishes there (the link works for ten minutes).",
        ].join("\n");
      });
    });

  mcp
    .command("logout")
    .argument("<server>", "the id of a remote (url) server")
    .description("revoke the server's OAuth tokens where it allows that, and forget them")
    .action(async (id: string) => {
      const setup = deps.setup();
      await withOAuth(setup, id, deps, write, async (kit) => {
        const result = await kit.logout(id);
        if (!result.hadTokens) return `There was no OAuth login for the MCP server "${id}"; nothing is stored for it now.`;
        const revoked = result.revoked
          ? "the server revoked the tokens"
          : `the server did not revoke them${result.error ? ` (${result.error})` : " (it offers no revocation endpoint)"}`;
        return `Logged out of the MCP server "${id}": its tokens are forgotten, and ${revoked}.`;
      });
    });
}

/** Runs `work` with the OAuth logins for the remote server `id`, printing its answer or why it failed. */
async function withOAuth(
  setup: McpCliSetup,
  id: string,
  deps: McpCliDeps,
  write: (line: string) => void,
  work: (kit: OAuthKit, server: HttpServerConfig) => Promise<string>,
): Promise<void> {
  const server = setup.config.servers[id];
  if (!server || isStdio(server)) {
    const remote = Object.entries(setup.config.servers).filter(([, s]) => !isStdio(s)).map(([key]) => key);
    return fail(write, `No remote MCP server (with a url) is configured as "${id}". Remote servers: ${remote.join(", ") || "none"}.`);
  }
  const { kit, close } = await deps.openOAuth();
  try {
    write(setup.redact(await work(kit, server)));
  } catch (err) {
    fail(write, setup.redact(err instanceof Error ? err.message : String(err)));
  } finally {
    await close();
  }
}

/** Connects to the configured server `id`, prints what `work` returns, or the reason it failed. */
async function live(
  setup: McpCliSetup,
  id: string,
  write: (line: string) => void,
  work: (session: OpenSession, definition: ServerDefinition) => Promise<string>,
): Promise<void> {
  const server = setup.config.servers[id];
  if (!server) {
    const ids = Object.keys(setup.config.servers);
    return fail(write, `No MCP server is configured as "${id}". Configured: ${ids.join(", ") || "none"}.`);
  }
  try {
    // Loaded here: the SDK takes about a second to import, which `switchboard --help` should not pay.
    const { withSession } = await import("./oneshot.js");
    write(setup.redact(await withSession({ id, server, limits: setup.config, wrapCommand: setup.wrapCommand }, work)));
  } catch (err) {
    fail(write, setup.redact(`MCP server "${id}": ${err instanceof Error ? err.message : String(err)}`));
  }
}

function parseArguments(json: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(json);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Falls through to the message below.
  }
  return `The arguments must be a JSON object, like '{"message": "hi"}'; got: ${json}`;
}

function fail(write: (line: string) => void, message: string): void {
  write(message);
  process.exitCode = 1;
}
