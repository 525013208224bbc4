/**
 * doctor's MCP checks: connect to every enabled server and list its tools, or say why it failed; and warn when
 * the full "MCP Servers" section would pass mcp.promptTokenBudget.
 */
import { budgetWarning, sectionTokens } from "./budget.js";
import { LoginRequiredError } from "./errors.js";
import type { McpConfig } from "./config.js";
import { renderMcpSection, type RenderedServer } from "./render.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";
import { isStdio } from "./config.js";
import type { OAuthKit } from "./oauth/index.js";
import type { WrapCommand } from "./transport.js";

export interface McpCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
  warning?: boolean;
}

const FIX =
  "run `switchboard mcp tools <id>` to see the error; check the server's command/url, env/headers, and that it starts by hand";

export interface McpDoctorOptions {
  wrapCommand?: WrapCommand;
  fetch?: FetchLike;
  /** The stored OAuth logins (with a logger for the provider), so that servers behind OAuth are reached too. */
  oauth?: OAuthKit;
  log?: Logger;
}

const LOGIN_FIX = "run `switchboard mcp login <id>` and open the link it prints, with the gateway running";

export async function checkMcpServers(config: McpConfig, opts: McpDoctorOptions = {}): Promise<McpCheck[]> {
  const { wrapCommand, oauth, log } = opts;
  const enabled = Object.entries(config.servers).filter(([, server]) => server.enabled);
  if (enabled.length === 0) return [];
  // Loaded here: the SDK takes about a second to import, which a set-up without servers should not pay.
  const { withSession } = await import("./oneshot.js");
  const seen: RenderedServer[] = [];
  const checks = await Promise.all(
    enabled.map(async ([id, server]): Promise<McpCheck> => {
      try {
        const authProvider = oauth && log && !isStdio(server) ? oauth.connectionProvider(id, server, log) : undefined;
        const session = { id, server, limits: config, wrapCommand, ...(authProvider ? { authProvider } : {}), ...(opts.fetch ? { fetch: opts.fetch } : {}) };
        return await withSession(session, async (session, definition) => {
          seen.push({ id, ...(server.name ? { name: server.name } : {}), status: { state: "connected" }, definition });
          const names = definition.tools.map((t) => t.name).join(", ");
          return { name: `mcp:${id}`, ok: true, detail: `${session.transport}, ${definition.tools.length} tool(s): ${names || "none"}` };
        });
      } catch (err) {
        const needsLogin = err instanceof Error && err.cause instanceof LoginRequiredError;
        return { name: `mcp:${id}`, ok: false, detail: err instanceof Error ? err.message : String(err), fix: needsLogin ? LOGIN_FIX.replace("<id>", id) : FIX };
      }
    }),
  );
  const tokens = sectionTokens(renderMcpSection(seen));
  const warning = budgetWarning(tokens, config.promptTokenBudget);
  if (warning) checks.push({ name: "mcp:budget", ok: true, warning: true, detail: warning, fix: "see mcp.promptTokenBudget" });
  return checks;
}
