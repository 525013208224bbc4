/** The web engine's plug: web_fetch and web_search, their settings, and doctor's check of the search provider. */
import { createWebHandler } from "../handlers/web.js";
import { webConfigSchema } from "../web/config.js";
import { WebEngine } from "../web/index.js";
import { defineFeature } from "./module.js";

export const webFeature = defineFeature({
  name: "web",
  configSchema: webConfigSchema,
  secretPaths: ["search.apiKey"],
  envOverrides: {
    WEB_SEARCH_PROVIDER: { path: "search.provider", type: "string" },
    WEB_SEARCH_URL: { path: "search.baseUrl", type: "string" },
    WEB_SEARCH_API_KEY: { path: "search.apiKey", type: "string" },
  },
  create: ({ settings }) => {
    const engine = new WebEngine(settings);
    // web_search stays listed without a provider, so the model can tell the user how to get one.
    return { handlers: [createWebHandler(engine, { fetch: settings.fetch.enabled, search: true })], stop: () => engine.close() };
  },
  doctor: async (settings) => {
    if (settings.search.provider === "none") {
      return [{ name: "web search", ok: true, warning: true, detail: "no provider (web.search.provider: none)", fix: "set web.search.provider and its baseUrl/apiKey to enable web_search" }];
    }
    const engine = new WebEngine(settings);
    try {
      const results = await engine.search({ query: "switchboard", count: 1, topic: "general" }, AbortSignal.timeout(15_000));
      return [{ name: "web search", ok: true, detail: `${settings.search.provider} answered with ${results.length} result(s)` }];
    } catch (err) {
      return [{ name: "web search", ok: false, detail: `${settings.search.provider}: ${err instanceof Error ? err.message : String(err)}`, fix: "check web.search.baseUrl and web.search.apiKey" }];
    } finally {
      await engine.close();
    }
  },
});
