/** The MCP engine's entry points for the gateway, the CLI and doctor. */
import { McpManager, type McpManagerOptions } from "./manager.js";

export { McpManager, mcpDefinitionsDir, type ServerView } from "./manager.js";
export type { WrapCommand, CommandSpec } from "./transport.js";

/** The manager, or null when no server is enabled (the MCP tools are then not registered at all). */
export function createMcpManager(opts: McpManagerOptions): McpManager | null {
  const enabled = Object.values(opts.config.servers).some((server) => server.enabled);
  return enabled ? new McpManager(opts) : null;
}

/** One /readyz entry per server: connected, or why not. A server down does not make the gateway unready. */
export function mcpReadiness(manager: McpManager): Record<string, { ok: boolean; detail: string }> {
  const entries = manager.list().map((server) => {
    const { state, transport, error } = server.status;
    const tools = server.definition?.tools.length ?? 0;
    const detail = state === "connected" ? `${transport}, ${tools} tool(s)` : `${state}${error ? `: ${error}` : ""}`;
    return [`mcp:${server.id}`, { ok: state === "connected", detail }] as const;
  });
  return Object.fromEntries(entries);
}
