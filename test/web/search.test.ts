/**
 * web_search against fakes of SearXNG (/search?format=json), the Brave Search API (/res/v1/web/search and
 * /res/v1/news/search, X-Subscription-Token) and Tavily (POST /search, Bearer key), answering their documented JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebHandler } from "../../src/handlers/web.js";
import { webConfigSchema } from "../../src/web/config.js";
import { WebEngine } from "../../src/web/index.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { assertToolDefinitionsValid } from "../handlers/tool-rules.js";
import { startSite, type Site } from "./site.js";

const KEY = "sk-search-test-key";
let api: Site;

beforeAll(async () => {
  const json = (body: unknown) => JSON.stringify(body);
  api = await startSite({
    "/searx/search": (send) =>
      send(200, "application/json", json({ query: "q", number_of_results: 1, results: [{ url: "https://a.example/", title: "A result", content: "About A", engine: "duckduckgo" }] })),
    "/res/v1/web/search": (send) =>
      send(200, "application/json", json({ type: "search", web: { type: "search", results: [{ title: "Brave web", url: "https://b.example/", description: "Web <strong>hit</strong>" }] } })),
    "/res/v1/news/search": (send) =>
      send(200, "application/json", json({ type: "news", results: [{ title: "Brave news", url: "https://n.example/", description: "Fresh news", age: "2 hours ago" }] })),
    "/search": (send) => send(200, "application/json", json({ query: "q", response_time: 0.5, results: [{ title: "Tavily hit", url: "https://t.example/", content: "Tavily snippet", score: 0.9 }] })),
    "/limited/search": (send) => send(429, "application/json", json({ detail: "rate limited" })),
    "/html/search": (send) => send(200, "text/html", "<html>format json disabled</html>"),
  });
});

afterAll(() => api.close());

async function searchWith(search: Record<string, unknown>, input: Record<string, unknown>): Promise<{ count: number; results: string }> {
  const engine = new WebEngine(webConfigSchema.parse({ search }));
  const spec = createWebHandler(engine, { fetch: true, search: true });
  try {
    return (await spec.tools.find((t) => t.definition.name === "web_search")!.run({ count: 5, ...input }, makeToolContext())) as { count: number; results: string };
  } finally {
    await engine.close();
  }
}

describe("web_search", () => {
  it("asks SearXNG for JSON at the instance root and frames the results as untrusted", async () => {
    const out = await searchWith({ provider: "searxng", baseUrl: api.url("/searx") }, { query: "lighthouse", topic: "news" });
    expect(out.count).toBe(1);
    expect(out.results).toMatch(/^<untrusted_context source="web_search">/);
    expect(out.results).toContain("1. A result\n   https://a.example/\n   About A");
    expect(api.hits).toContain("/searx/search?q=lighthouse&format=json&categories=news");
  });

  it("uses Brave's web search, and its news search for topic news, with the subscription token", async () => {
    const web = await searchWith({ provider: "brave", baseUrl: api.url("/"), apiKey: KEY }, { query: "x" });
    expect(web.results).toContain("Brave web");
    const news = await searchWith({ provider: "brave", baseUrl: api.url("/"), apiKey: KEY }, { query: "x", topic: "news" });
    expect(news.results).toContain("Brave news");
    expect(news.results).not.toContain(KEY);
    expect(api.requests.findLast((r) => r.url.startsWith("/res/v1/news/search"))!.headers["x-subscription-token"]).toBe(KEY);
  });

  it("posts the query to Tavily with the topic and a bearer key", async () => {
    const out = await searchWith({ provider: "tavily", baseUrl: api.url("/"), apiKey: KEY }, { query: "x", topic: "news", count: 3 });
    expect(out.results).toContain("Tavily hit");
    const call = api.requests.findLast((r) => r.url === "/search")!;
    expect(JSON.parse(call.body)).toEqual({ query: "x", max_results: 3, topic: "news" });
    expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("says how to configure a provider when there is none, and names missing keys", async () => {
    await expect(searchWith({ provider: "none" }, { query: "x" })).rejects.toThrow(/WEB_SEARCH_PROVIDER.*docs\/tools\.md/s);
    await expect(searchWith({ provider: "brave" }, { query: "x" })).rejects.toThrow(/web\.search\.apiKey \(WEB_SEARCH_API_KEY\)/);
  });

  it("reports a rate limit, HTML instead of JSON, and an unreachable provider clearly", async () => {
    await expect(searchWith({ provider: "searxng", baseUrl: api.url("/limited") }, { query: "x" })).rejects.toThrow(/HTTP 429 \(rate limited/);
    await expect(searchWith({ provider: "searxng", baseUrl: api.url("/html") }, { query: "x" })).rejects.toThrow(/enable the json format/);
    await expect(searchWith({ provider: "searxng", baseUrl: "http://127.0.0.1:9/" }, { query: "x" })).rejects.toThrow(/could not be reached/);
  });
});

describe("web tool definitions", () => {
  it("follow the tool rules and need the web permission", () => {
    const spec = createWebHandler(new WebEngine(webConfigSchema.parse({})), { fetch: true, search: true });
    const definitions = spec.tools.map((t) => t.definition);
    assertToolDefinitionsValid(definitions);
    expect(definitions.map((d) => [d.name, d.risk])).toEqual([["web_fetch", "web"], ["web_search", "web"]]);
  });
});
