/** The MCP client's plug: the servers' tools, their prompt section, readiness, the console's list, doctor and CLI. */
import { Hono } from "hono";
import { createMcpHandler, mcpPromptSection } from "../handlers/mcp.js";
import { redactText } from "../infra/config/secrets.js";
import { registerMcpCommands } from "../mcp/cli.js";
import { mcpConfigSchema, mcpSecrets } from "../mcp/config.js";
import { checkMcpServers } from "../mcp/doctor.js";
import { createMcpManager, mcpReadiness } from "../mcp/index.js";
import { defineFeature, type ReadinessContribution } from "./module.js";

export const mcpFeature = defineFeature({
  name: "mcp",
  configSchema: mcpConfigSchema,
  // Servers' env and header values are secrets too; they have no fixed paths.
  secretsOf: (settings) => mcpSecrets(settings),
  create: async ({ settings, core, log, sandbox, secrets }) => {
    const mcp = await createMcpManager({
      config: settings,
      dataDir: core.dataDir,
      log,
      // A `sandbox: true` server runs in bubblewrap with its cwd read-only and the network only if granted by its id.
      wrapCommand: (spec) => sandbox.wrap({ command: spec.command, args: spec.args, env: spec.env, skillDir: spec.cwd, networkName: spec.id }),
    });
    const servers = new Hono().get("/", (c) =>
      c.json({
        servers: (mcp?.list() ?? []).map((server) => ({
          name: server.id,
          status: server.status.state,
          tools: server.definition?.tools.map((tool) => tool.name) ?? [],
        })),
      }),
    );
    if (!mcp) return { mcp: null, consoleRoutes: { mcp: servers } };
    // Only the Anthropic API takes images inside tool results; OpenAI-compatible ones would get base64 as text.
    const vision = core.llm.vision && core.llm.provider === "anthropic";
    // A server that is down does not make the gateway unready, as with the LLM; its error may quote secrets.
    const readiness = Object.fromEntries(
      mcp.list().map((server): [string, ReadinessContribution] => [
        `mcp:${server.id}`,
        {
          check: () => {
            const status = mcpReadiness(mcp)[`mcp:${server.id}`] ?? { ok: false, detail: "unknown" };
            return { ok: status.ok, detail: redactText(status.detail, secrets) };
          },
          gates: false,
        },
      ]),
    );
    return {
      mcp,
      handlers: [createMcpHandler(mcp, { vision })],
      turn: { mcpSection: (permissions, only) => mcpPromptSection(mcp, permissions, only) },
      readiness,
      consoleRoutes: { mcp: servers },
      // Servers connect in the background: a slow one never holds up the gateway.
      start: () => mcp.start(),
      stop: () => mcp.stop(),
    };
  },
  doctor: async (settings) => checkMcpServers(settings),
  cli: (program, ctx) =>
    registerMcpCommands(program, {
      setup: () => {
        const { settings, core, secrets } = ctx.setup();
        return { config: settings, dataDir: core.dataDir, redact: (text) => redactText(text, secrets) };
      },
    }),
});
