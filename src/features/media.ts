/**
 * The media engine's plug: downloads and transcriptions before each turn, the im_channel tools (files out, with
 * receipts), the receipts' routes and CLI, and the janitor of old downloads.
 */
import { Hono } from "hono";
import { createImChannelHandler } from "../handlers/im-channel.js";
import { mediaConfigSchema } from "../media/config.js";
import { createMedia } from "../media/index.js";
import { registerReceiptsCommands } from "../media/receipts-cli.js";
import { registerReceiptRoutes } from "../media/receipts-routes.js";
import { defineFeature } from "./module.js";

export const mediaFeature = defineFeature({
  name: "media",
  configSchema: mediaConfigSchema,
  secretPaths: ["stt.apiKey"],
  envOverrides: {
    STT_BASE_URL: { path: "stt.baseUrl", type: "string" },
    STT_API_KEY: { path: "stt.apiKey", type: "string" },
    STT_MODEL: { path: "stt.model", type: "string" },
  },
  create: (deps) => {
    const { store, log, channelOf, outbound, secrets } = deps;
    const media = createMedia({
      config: { llm: deps.core.llm, media: deps.settings },
      secrets,
      store,
      log,
      channelOf,
      outbound,
      workspacesRoot: deps.workspaces.root,
      isKnownChat: (channel, chatId) => deps.directory.isKnownChat(channel, chatId),
    });
    registerReceiptRoutes(deps.http, media.ledger);
    const receipts = new Hono().get("/", async (c) => c.json({ receipts: await media.ledger.list({ limit: 200 }) }));
    return {
      handlers: [createImChannelHandler({ media, channelOf, history: deps.history })],
      turn: { prepareMedia: (input, turnLog) => media.inbound.prepare(input, turnLog) },
      consoleRoutes: { receipts },
      start: () => media.start(),
      stop: () => media.stop(),
    };
  },
  cli: (program, ctx) => registerReceiptsCommands(program, { openStore: () => ctx.openStore() }),
});
