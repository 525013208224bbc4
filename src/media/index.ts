/**
 * The IM Channel part of the gateway, built from the configuration: the agent's chat tools, the media step
 * that runs before each turn, the receipts ledger, and the janitor that deletes old downloads.
 */
import { join } from "node:path";
import type { Channel, ChannelName } from "../core/types.js";
import type { Config } from "../infra/config/schema.js";
import { collectSecrets } from "../infra/config/secrets.js";
import { imChannelToolImplementations } from "../handlers/im-channel.js";
import { dispatchTools, type ToolDefinition, type ToolHandler } from "../core/tools.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import { SpeechToText, sttEndpointOf } from "./stt.js";
import { Deliverer } from "./deliver.js";
import { DeliveryMemory } from "./delivered.js";
import { Ffmpeg } from "./ffmpeg.js";
import { InboundMedia } from "./inbound.js";
import { MediaJanitor } from "./janitor.js";
import { KnownChats } from "./known-chats.js";
import { MediaRecords } from "./media-records.js";
import { ReceiptLedger } from "./receipts.js";

export interface ImChannelDeps {
  config: Config;
  store: Store;
  log: Logger;
  /** The running channels; called when a tool or a turn needs one, after the gateway has built them. */
  channelOf: (name: ChannelName) => Channel | undefined;
}

export interface ImChannel {
  handler: ToolHandler;
  tools: ToolDefinition[];
  media: InboundMedia;
  ledger: ReceiptLedger;
  /** Starts deleting downloads past their retention time. */
  start(): void;
  stop(): void;
}

const HOUR_MS = 3_600_000;

export function createImChannel(deps: ImChannelDeps): ImChannel {
  const { config, store, log, channelOf } = deps;
  const { media: settings } = config;
  const stt = sttEndpointOf(config);
  if ("problem" in stt) log.info(`voice messages will not be transcribed: ${stt.problem}`);
  const knownChats = new KnownChats(store);
  const ledger = new ReceiptLedger(store);
  const ffmpeg = new Ffmpeg(settings.ffmpegPath);
  const retentionMs = settings.retentionHours * HOUR_MS;
  const media = new InboundMedia({
    channelOf,
    records: new MediaRecords(store, retentionMs),
    knownChats,
    stt: "problem" in stt ? stt : new SpeechToText(stt),
    maxDownloadBytes: settings.maxDownloadBytes,
  });
  const deliverer = new Deliverer({
    channelOf,
    ledger,
    memory: new DeliveryMemory(store, settings.dedupTtlHours * HOUR_MS),
    knownChats,
    ffmpeg,
    sendTimeoutMs: settings.sendTimeoutMs,
    secrets: collectSecrets(config),
  });
  const implementations = imChannelToolImplementations({ deliverer, media, channelOf, ffmpeg, store, log });
  const janitor = new MediaJanitor(join(config.dataDir, "workspaces"), retentionMs, log);
  return {
    handler: dispatchTools(implementations),
    tools: implementations.map((impl) => impl.definition),
    media,
    ledger,
    start: () => janitor.start(),
    stop: () => janitor.stop(),
  };
}
