/**
 * web_search's providers, each spoken in its own documented JSON: SearXNG (`/search?format=json`), the Brave Search
 * API (web and news endpoints) and Tavily (`POST /search`, with its news topic). The provider's address is the
 * operator's, not the agent's, so it is not subject to the private-address rule (SearXNG often runs next door).
 */
import { z } from "zod";
import type { SearchProvider } from "./config.js";
import { WebError } from "./errors.js";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchQuery {
  query: string;
  count: number;
  topic: "general" | "news";
}

export interface SearchSettings {
  provider: SearchProvider;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
}

const DEFAULT_ROOTS: Partial<Record<SearchProvider, string>> = {
  brave: "https://api.search.brave.com",
  tavily: "https://api.tavily.com",
};

export const HOW_TO_CONFIGURE =
  "No web search provider is configured. The operator can set web.search.provider (searxng, brave or tavily) with " +
  "web.search.baseUrl and web.search.apiKey, or the WEB_SEARCH_PROVIDER, WEB_SEARCH_URL and WEB_SEARCH_API_KEY " +
  "environment variables; see 'Web fetch, web search and the browser' in docs/tools.md.";

const searxngSchema = z.object({ results: z.array(z.object({ title: z.string().default(""), url: z.string(), content: z.string().nullish() })) });
const braveItems = z.array(z.object({ title: z.string().default(""), url: z.string(), description: z.string().nullish() }));
const braveWebSchema = z.object({ web: z.object({ results: braveItems }).optional() });
const braveNewsSchema = z.object({ results: braveItems });
const tavilySchema = z.object({ results: z.array(z.object({ title: z.string().default(""), url: z.string(), content: z.string().nullish() })) });

export async function search(settings: SearchSettings, q: SearchQuery, signal: AbortSignal): Promise<SearchResult[]> {
  switch (settings.provider) {
    case "none":
      throw new WebError(HOW_TO_CONFIGURE, "not_configured");
    case "searxng": {
      if (!settings.baseUrl) throw new WebError("web.search.provider is searxng but web.search.baseUrl (WEB_SEARCH_URL) is not set", "not_configured");
      const url = new URL("search", withSlash(settings.baseUrl));
      url.search = new URLSearchParams({ q: q.query, format: "json", categories: q.topic === "news" ? "news" : "general" }).toString();
      const data = parseAs("SearXNG", searxngSchema, await getJson("SearXNG", url, { accept: "application/json" }, signal));
      return data.results.map((r) => ({ title: r.title, url: r.url, snippet: r.content ?? "" }));
    }
    case "brave": {
      const key = requireKey(settings, "Brave Search");
      const path = q.topic === "news" ? "res/v1/news/search" : "res/v1/web/search";
      const url = new URL(path, withSlash(settings.baseUrl ?? DEFAULT_ROOTS.brave!));
      url.search = new URLSearchParams({ q: q.query, count: String(q.count) }).toString();
      const json = await getJson("Brave Search", url, { accept: "application/json", "x-subscription-token": key }, signal);
      const items = q.topic === "news" ? parseAs("Brave Search", braveNewsSchema, json).results : (parseAs("Brave Search", braveWebSchema, json).web?.results ?? []);
      return items.map((r) => ({ title: r.title, url: r.url, snippet: r.description ?? "" }));
    }
    case "tavily": {
      const key = requireKey(settings, "Tavily");
      const url = new URL("search", withSlash(settings.baseUrl ?? DEFAULT_ROOTS.tavily!));
      const body = JSON.stringify({ query: q.query, max_results: q.count, topic: q.topic });
      const json = await call("Tavily", url, { method: "POST", body, headers: { "content-type": "application/json", authorization: `Bearer ${key}` } }, signal);
      return parseAs("Tavily", tavilySchema, json).results.map((r) => ({ title: r.title, url: r.url, snippet: r.content ?? "" }));
    }
  }
}

function parseAs<T>(name: string, schema: z.ZodType<T>, json: unknown): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new WebError(`${name} answered JSON of an unexpected shape: ${parsed.error.issues[0]?.message ?? "invalid"}`, "http_status");
  return parsed.data;
}

function requireKey(settings: SearchSettings, name: string): string {
  if (!settings.apiKey) throw new WebError(`web.search.provider is ${settings.provider} but web.search.apiKey (WEB_SEARCH_API_KEY) is not set for ${name}`, "not_configured");
  return settings.apiKey;
}

function withSlash(root: string): string {
  return root.endsWith("/") ? root : `${root}/`;
}

function getJson(name: string, url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  return call(name, url, { method: "GET", headers }, signal);
}

async function call(name: string, url: URL, init: RequestInit, signal: AbortSignal): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal });
  } catch (err) {
    throw new WebError(`${name} at ${url.origin} could not be reached: ${err instanceof Error ? err.message : String(err)}`, "network");
  }
  if (!res.ok) {
    const hint = res.status === 429 ? " (rate limited: try again later)" : res.status === 401 || res.status === 403 ? " (check web.search.apiKey)" : "";
    throw new WebError(`${name} answered HTTP ${res.status}${hint}`, "http_status");
  }
  try {
    return await res.json();
  } catch {
    throw new WebError(`${name} did not answer with JSON (for SearXNG, enable the json format in its settings.yml)`, "http_status");
  }
}
