/**
 * What MCP's full exposure costs: for each configured server (the config file in $SWITCHBOARD_CONFIG; when it has
 * none, the reference "everything" server from npm as a sample), the time to connect and list its tools, and the
 * tokens (o200k_base) its part of the "MCP Servers" prompt section takes, against mcp.promptTokenBudget.
 */
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config.js";
import { sectionTokens } from "../src/mcp/budget.js";
import { mcpConfigSchema, type McpConfig } from "../src/mcp/config.js";
import { withSession } from "../src/mcp/oneshot.js";
import { callTool } from "../src/mcp/protocol.js";
import { renderMcpSection, type RenderedServer } from "../src/mcp/render.js";
import type { BenchResult } from "./types.js";

const EVERYTHING = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const ECHO_CALLS = 200;

function serversToMeasure(): { config: McpConfig; source: string } {
  const configured = loadConfig({}).mcp;
  if (Object.values(configured.servers).some((s) => s.enabled)) return { config: configured, source: "configured servers" };
  const sample = mcpConfigSchema.parse({ servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } });
  return { config: sample, source: "no server configured: the everything server (npm) as a sample" };
}

export async function run(): Promise<BenchResult> {
  const { config, source } = serversToMeasure();
  const rows: BenchResult["rows"] = [];
  const all: RenderedServer[] = [];
  for (const [id, server] of Object.entries(config.servers).filter(([, s]) => s.enabled)) {
    const started = performance.now();
    try {
      await withSession({ id, server, limits: config }, async (session, definition) => {
        const connectMs = performance.now() - started;
        const view: RenderedServer = { id, status: { state: "connected" }, definition };
        all.push(view);
        let echo = "";
        if (definition.tools.some((t) => t.name === "echo")) {
          const callStarted = performance.now();
          for (let i = 0; i < ECHO_CALLS; i++) await callTool(session.client, "echo", { message: `m${i}` }, { timeoutMs: 10_000, maxOutputChars: 50_000 });
          echo = `${((performance.now() - callStarted) / ECHO_CALLS).toFixed(2)} ms/call`;
        }
        rows.push({
          server: id,
          transport: session.transport,
          "connect+list": `${connectMs.toFixed(0)} ms`,
          tools: definition.tools.length,
          "section tokens": await sectionTokens(renderMcpSection([view])),
          "echo round trip": echo,
        });
      });
    } catch (err) {
      rows.push({ server: id, transport: "FAIL", "connect+list": err instanceof Error ? err.message.slice(0, 60) : String(err) });
    }
  }
  const total = await sectionTokens(renderMcpSection(all));
  const verdict = total > config.promptTokenBudget ? "over" : "within";
  rows.push({ server: "(whole section)", "section tokens": total, budget: `${verdict} mcp.promptTokenBudget (${config.promptTokenBudget})` });
  return { name: "MCP: full exposure", workload: `${source}; ${ECHO_CALLS} sequential echo calls where there is an echo tool`, rows };
}
