/** `switchboard mcp list | tools SERVER | call SERVER TOOL [JSON]`: the configured servers, seen from the shell. */
import type { Command } from "commander";
import type { McpConfig } from "./config.js";
import { DefinitionStore, mcpDefinitionsDir, type ServerDefinition } from "./definitions.js";
import { renderMcpSection } from "./render.js";
import { resultText } from "./results.js";
import type { OpenSession, WrapCommand } from "./transport.js";

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
  out?: (line: string) => void;
}

export function registerMcpCommands(program: Command, deps: McpCliDeps): void {
  const write = deps.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const mcp = program.command("mcp").description("list the MCP servers, show their tools, call one");

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
