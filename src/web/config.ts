/** The `web` section: web_fetch's limits, the search provider, and the private addresses the operator allows. */
import { z } from "zod";

export const SEARCH_PROVIDERS = ["searxng", "brave", "tavily", "none"] as const;
export type SearchProvider = (typeof SEARCH_PROVIDERS)[number];

export const webConfigSchema = z
  .object({
    fetch: z
      .object({
        enabled: z.boolean().default(true),
        maxBytes: z.number().int().positive().default(5 * 1024 * 1024),
        timeoutMs: z.number().int().positive().default(15_000),
      })
      .prefault({}),
    search: z
      .object({
        provider: z.enum(SEARCH_PROVIDERS).default("none"),
        /** SearXNG: the instance root. Brave and Tavily: their API root, when not the public one. */
        baseUrl: z.url().optional(),
        apiKey: z.string().min(1).optional(),
      })
      .prefault({}),
    /** Private addresses the agent may reach anyway: `host:port`, `host` or a CIDR range. */
    allowPrivate: z.array(z.string().min(1)).default([]),
  })
  .prefault({});

export type WebConfig = z.output<typeof webConfigSchema>;
