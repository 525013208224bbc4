/** The MCP engine's entry points for the gateway, the CLI and doctor. */
import type { McpManager, McpManagerOptions } from "./manager.js";

export type { McpManager, ServerView } from "./manager.js";
export type { WrapCommand, CommandSpec } from "./transport.js";

/**
 * The manager, or null when no server is enabled (the MCP tools are then not registered at all). The SDK is
 * loaded only then: it takes about a second to import.
 */
export async function createMcpManager(opts: McpManagerOptions): Promise<McpManager | null> {
  const enabled = Object.values(opts.config.servers).some((server) => server.enabled);
  if (!enabled) return null;
  const { McpManager } = await import("./manager.js");
  return new McpManager(opts);
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
