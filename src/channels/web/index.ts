/** WebChat: the built-in browser chat page and HTTP API. */
import { z } from "zod";
import { streamingSetting } from "../live-reply.js";
import { defineChannel } from "../module.js";
import { WebChannel, type WebChannelOptions } from "./channel.js";

export { WebChannel, type WebChannelOptions };

export function createWebChannel(opts: WebChannelOptions): WebChannel {
  return new WebChannel(opts);
}

const webConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** Replies grow in the open tabs as the model writes them ("preview" or "draft"), or appear whole ("off"). */
    streaming: streamingSetting("preview"),
  })
  .prefault({});

export const webChannel = defineChannel({
  name: "web",
  configSchema: webConfigSchema,
  credentials: [],
  secretPaths: [],
  envOverrides: {},
  create: ({ settings, core, store, log, http }) =>
    createWebChannel({
      store,
      log,
      http,
      dataDir: core.dataDir,
      maxTextLength: core.http.maxTextLength,
      trustUserIds: core.http.token !== null,
      botName: core.agent.name,
      streaming: settings.streaming,
    }),
  check: (_settings, core) => Promise.resolve(`served on http://${core.http.host}:${core.http.port}/`),
  fix: "check http.host and http.port",
});
