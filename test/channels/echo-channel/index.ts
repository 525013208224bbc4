/**
 * A fifth channel that lives in test/: it proves a platform plugs in with its own folder and one line in the
 * module list (`[...channelModules, echoChannel]`), with no edit anywhere else.
 */
import { defineChannel } from "../../../src/channels/module.js";
import { EchoChannel } from "./channel.js";
import { echoConfigSchema } from "./config.js";
import { echoPlatform } from "./platform.js";

export { echoPlatform } from "./platform.js";

export const echoChannel = defineChannel({
  name: "echo",
  configSchema: echoConfigSchema,
  credentials: [],
  secretPaths: [],
  envOverrides: {},
  create: ({ settings, store, log }) => new EchoChannel(settings, echoPlatform, store, log),
  check: async () => "the in-process echo platform is always there",
  fix: "nothing to fix",
});
