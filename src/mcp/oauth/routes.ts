/**
 * The HTTP side of OAuth logins: the callback the owner's browser comes back to (public: the one-time `state` is
 * what ties it to a login an owner started), and the console's "log in" action, which answers with the link to open.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { consoleError } from "../../infra/http/errors.js";
import { isStdio, type HttpServerConfig, type McpConfig } from "../config.js";
import { describeError } from "../errors.js";
import { OAUTH_CALLBACK_PATH, type OAuthKit } from "./index.js";

export interface OAuthRouteDeps {
  kit: OAuthKit;
  config: McpConfig;
  /** A login finished: reconnect that server now. */
  onLogin(id: string): void;
  onError(err: unknown, what: string): void;
}

function httpServers(config: McpConfig): Record<string, HttpServerConfig> {
  return Object.fromEntries(Object.entries(config.servers).flatMap(([id, server]) => (isStdio(server) ? [] : [[id, server]])));
}

/** GET /mcp/oauth/callback?code&state (or ?error&error_description from a refusal). */
export function oauthCallbackRoutes(deps: OAuthRouteDeps): Hono {
  return new Hono().get(OAUTH_CALLBACK_PATH, async (c) => {
    const { code, state, error, error_description: about } = c.req.query();
    const page = (status: 200 | 400, title: string, text: string) =>
      c.html(html`<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>`, status);
    if (error) return page(400, "Login refused", `The authorization server said: ${error}${about ? ` (${about})` : ""}. Start the login again.`);
    if (!code || !state) return page(400, "Not a login", "This address is where an MCP server's login comes back; it needs code and state.");
    try {
      const id = await deps.kit.finishLogin(httpServers(deps.config), state, code);
      deps.onLogin(id);
      return page(200, "Logged in", `Switchboard is now logged in to the MCP server "${id}". You can close this page.`);
    } catch (err) {
      deps.onError(err, "MCP OAuth login failed");
      return page(400, "Login failed", describeError(err));
    }
  });
}

/** POST /:id/login under the console's MCP routes: { url } to open. */
export function consoleLoginRoute(app: Hono, deps: OAuthRouteDeps): Hono {
  return app.post("/:id/login", async (c) => {
    const id = c.req.param("id");
    const server = httpServers(deps.config)[id];
    if (!server) return consoleError(c, 404, { code: "mcp_server_not_found", server: id }, `No remote (HTTP) MCP server is configured as "${id}".`);
    // Unless configured, the console's own address: the browser that asked is the one that will come back.
    const redirectUrl = deps.config.oauthRedirectUrl ?? new URL(OAUTH_CALLBACK_PATH, c.req.url).toString();
    try {
      return c.json({ url: (await deps.kit.startLogin(id, server, redirectUrl)).toString() });
    } catch (err) {
      deps.onError(err, "MCP OAuth login could not start");
      const detail = describeError(err);
      return consoleError(c, 502, { code: "login_failed", detail }, detail);
    }
  });
}
