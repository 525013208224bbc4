/** The MCP client's plug: the servers' tools, their prompt section, readiness, OAuth logins, the console's list, doctor and CLI. */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { Hono } from "hono";
import { systemClock } from "../core/clock.js";
import { createMcpHandler, mcpPromptSection } from "../handlers/mcp.js";
import { redactText } from "../infra/config/secrets.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import { loadSecretBox } from "../infra/crypto/secret-box.js";
import { createStore } from "../infra/store/index.js";
import type { Store } from "../infra/store/types.js";
import { registerMcpCommands } from "../mcp/cli.js";
import { mcpConfigSchema, mcpSecrets, type McpConfig } from "../mcp/config.js";
import { checkMcpServers } from "../mcp/doctor.js";
import { mcpFetch } from "../mcp/guarded-fetch.js";
import { createMcpManager, mcpReadiness } from "../mcp/index.js";
import { CredentialStore } from "../mcp/oauth/credentials.js";
import { OAUTH_CALLBACK_PATH, OAuthKit } from "../mcp/oauth/index.js";
import { consoleLoginRoute, oauthCallbackRoutes } from "../mcp/oauth/routes.js";
import { defineFeature, type ReadinessContribution } from "./module.js";
import { primaryEntry } from "../infra/config/model-entries.js";

/** The OAuth logins of `settings`' servers, kept in `store` (the gateway's, or the one a CLI command opened). */
function oauthKit(settings: McpConfig, core: CoreConfig, store: Store, fetchFn: FetchLike): OAuthKit {
  const host = ["0.0.0.0", "::", ""].includes(core.http.host) ? "127.0.0.1" : core.http.host;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${core.http.port}`;
  return new OAuthKit({
    credentials: new CredentialStore(store, () => loadSecretBox(core.dataDir)),
    clock: systemClock,
    redirectUrl: settings.oauthRedirectUrl ?? `${origin}${OAUTH_CALLBACK_PATH}`,
    fetchFn,
  });
}

function allowPrivateOf(sections: Readonly<Record<string, unknown>>): readonly string[] {
  return (sections.web as { allowPrivate?: string[] } | undefined)?.allowPrivate ?? [];
}

export const mcpFeature = defineFeature({
  name: "mcp",
  configSchema: mcpConfigSchema,
  // Requests to remote servers and their authorization servers obey web.allowPrivate.
  reads: ["web"],
  // Servers' env and header values are secrets too; they have no fixed paths.
  secretsOf: (settings) => mcpSecrets(settings),
  create: async ({ settings, core, log, sandbox, secrets, store, http, sections }) => {
    const fetchFn = mcpFetch(settings, allowPrivateOf(sections));
    const oauth = oauthKit(settings, core, store, fetchFn);
    const mcp = await createMcpManager({
      config: settings,
      dataDir: core.dataDir,
      log,
      // A `sandbox: true` server runs in bubblewrap with its cwd read-only and the network only if granted by its id.
      wrapCommand: (spec) => sandbox.wrap({ command: spec.command, args: spec.args, env: spec.env, skillDir: spec.cwd, networkName: spec.id }),
      oauth,
      fetch: fetchFn,
    });
    const servers = new Hono().get("/", (c) =>
      c.json({
        servers: (mcp?.list() ?? []).map((server) => ({
          name: server.id,
          status: server.status.state,
          ...(server.status.needsLogin ? { needsLogin: true } : {}),
          tools: server.definition?.tools.map((tool) => tool.name) ?? [],
        })),
      }),
    );
    if (!mcp) return { mcp: null, consoleRoutes: { mcp: servers } };
    const routeDeps = {
      kit: oauth,
      config: settings,
      onLogin: (id: string) => mcp.reconnect(id),
      onError: (err: unknown, what: string) => log.warn({ err: redactText(err instanceof Error ? err.message : String(err), secrets) }, what),
    };
    http.app.route("/", oauthCallbackRoutes(routeDeps));
    consoleLoginRoute(servers, routeDeps);
    // Only the Anthropic API takes images inside tool results; OpenAI-compatible ones would get base64 as text.
    const primary = primaryEntry(core.llm);
    const vision = primary?.vision === true && primary.provider === "anthropic";
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
      oauth,
      handlers: [createMcpHandler(mcp, { vision })],
      turn: { mcpSection: (permissions, only) => mcpPromptSection(mcp, permissions, only) },
      readiness,
      consoleRoutes: { mcp: servers },
      // Servers connect in the background: a slow one never holds up the gateway.
      start: () => mcp.start(),
      stop: () => mcp.stop(),
    };
  },
  doctor: async (settings, core, log) => {
    // The stored logins let doctor reach OAuth servers as the gateway does; without the store it still checks the rest.
    const store = await createStore({ url: core.store.url, keyPrefix: core.store.keyPrefix, dataDir: core.dataDir, log }).catch(() => undefined);
    try {
      const fetchFn = mcpFetch(settings, []);
      return await checkMcpServers(settings, { fetch: fetchFn, ...(store ? { oauth: oauthKit(settings, core, store, fetchFn), log } : {}) });
    } finally {
      await store?.close();
    }
  },
  cli: (program, ctx) =>
    registerMcpCommands(program, {
      setup: () => {
        const { settings, core, secrets } = ctx.setup();
        return { config: settings, dataDir: core.dataDir, redact: (text) => redactText(text, secrets) };
      },
      openOAuth: async () => {
        const { settings, core } = ctx.setup();
        const store = await ctx.openStore();
        // The CLI reads no other section: requests go to the configured servers and public addresses only.
        return { kit: oauthKit(settings, core, store, mcpFetch(settings, [])), close: () => store.close() };
      },
    }),
});
