/** WebChat: the built-in browser chat page and HTTP API. */
import type { ChannelModule } from "../module.js";
import { WebChannel, type WebChannelOptions } from "./channel.js";

export { WebChannel, type WebChannelOptions };

export function createWebChannel(opts: WebChannelOptions): WebChannel {
  return new WebChannel(opts);
}

export const webChannel: ChannelModule = {
  name: "web",
  create: ({ config, store, log, http }) =>
    createWebChannel({
      store,
      log,
      http,
      dataDir: config.dataDir,
      maxTextLength: config.http.maxTextLength,
      trustUserIds: config.http.token !== null,
      botName: config.agent.name,
    }),
  check: (config) => Promise.resolve(`served on http://${config.http.host}:${config.http.port}/`),
  fix: "check http.host and http.port",
};
