/** The web engine: guarded fetching turned into Markdown, and search through the configured provider. */
import type { Agent } from "undici";
import { AddressGuard, type Resolver } from "../infra/net/address-guard.js";
import type { WebConfig } from "./config.js";
import { guardedAgent } from "../infra/net/guarded-agent.js";
import { WebError } from "./errors.js";
import { extract } from "./extract.js";
import { guardedGet } from "./fetch.js";
import { search, type SearchQuery, type SearchResult } from "./search.js";

export { WebError } from "./errors.js";
export { HOW_TO_CONFIGURE } from "./search.js";
export type { SearchResult } from "./search.js";

export interface FetchedPage {
  url: string;
  title?: string;
  contentType: string;
  markdown: string;
  /** The text was cut at maxChars, or the body at web.fetch.maxBytes. */
  truncated: boolean;
}

export class WebEngine {
  private readonly agent: Agent;

  constructor(
    private readonly config: WebConfig,
    resolver?: Resolver,
  ) {
    const guard = new AddressGuard({ allowPrivate: config.allowPrivate, ...(resolver ? { resolver } : {}) });
    this.agent = guardedAgent(guard, config.fetch.timeoutMs);
  }

  async fetchPage(url: string, maxChars: number, signal: AbortSignal): Promise<FetchedPage> {
    const res = await guardedGet(this.agent, url, this.config.fetch, signal);
    if (res.status >= 400) throw new WebError(`${res.url} answered HTTP ${res.status}`, "http_status");
    const { title, markdown } = await extract(res.contentType, res.body);
    const cut = markdown.length > maxChars;
    return {
      url: res.url,
      ...(title !== undefined ? { title } : {}),
      contentType: res.contentType,
      markdown: cut ? markdown.slice(0, maxChars) : markdown,
      truncated: cut || res.truncated,
    };
  }

  search(query: SearchQuery, signal: AbortSignal): Promise<SearchResult[]> {
    return search(this.config.search, query, signal);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
