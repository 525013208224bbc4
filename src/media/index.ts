/**
 * The media engine, built from its settings: the step that downloads and transcribes what users send before
 * each turn, outbound delivery with receipts, the receipts ledger, and the janitor that deletes old downloads.
 * The im_channel handler (src/handlers/im-channel.ts) is its tool surface.
 */
import type { Outbound } from "../core/outbound.js";
import type { Channel, ChannelName } from "../core/types.js";
import type { CoreConfig } from "../infra/config/core-schema.js";
import type { Logger } from "../infra/log.js";
import type { Store } from "../infra/store/types.js";
import type { MediaConfig } from "./config.js";
import { Deliverer } from "./deliver.js";
import { DeliveryMemory } from "./delivered.js";
import { Ffmpeg } from "./ffmpeg.js";
import { InboundMedia } from "./inbound.js";
import { MediaJanitor } from "./janitor.js";
import { MediaRecords } from "./media-records.js";
import { ReceiptLedger } from "./receipts.js";
import { SpeechToText, sttEndpointOf } from "./stt.js";

export interface MediaDeps {
  config: Pick<CoreConfig, "llm"> & { media: MediaConfig };
  /** The configured secret values, kept out of receipts. */
  secrets: readonly string[];
  store: Store;
  log: Logger;
  /** The running channels; called when a tool or a turn needs one. */
  channelOf: (name: ChannelName) => Channel | undefined;
  /** Every file goes out through here (the one retry policy). */
  outbound: Outbound;
  /** Whether a message ever came from a chat (the session directory's record): files go only to those. */
  isKnownChat: (channel: ChannelName, chatId: string) => Promise<boolean>;
  /** Where the sessions' workspaces are, for the janitor of old downloads (src/infra/workspace.ts). */
  workspacesRoot: string;
}

export interface Media {
  inbound: InboundMedia;
  deliverer: Deliverer;
  ffmpeg: Ffmpeg;
  ledger: ReceiptLedger;
  /** Starts deleting downloads past their retention time. */
  start(): void;
  stop(): void;
}

const HOUR_MS = 3_600_000;

export function createMedia(deps: MediaDeps): Media {
  const { config, store, log, channelOf } = deps;
  const { media: settings } = config;
  const stt = sttEndpointOf(config);
  if ("problem" in stt) log.info(`voice messages will not be transcribed: ${stt.problem}`);
  const ledger = new ReceiptLedger(store);
  const retentionMs = settings.retentionHours * HOUR_MS;
  const inbound = new InboundMedia({
    channelOf,
    records: new MediaRecords(store, retentionMs),
    stt: "problem" in stt ? stt : new SpeechToText(stt),
    maxDownloadBytes: settings.maxDownloadBytes,
  });
  const deliverer = createDeliverer({ ...deps, settings });
  const janitor = new MediaJanitor(deps.workspacesRoot, retentionMs, log);
  return { inbound, deliverer, ffmpeg: deliverer.ffmpeg, ledger, start: () => janitor.start(), stop: () => janitor.stop() };
}

type DelivererSetup = Pick<MediaDeps, "secrets" | "store" | "channelOf" | "outbound" | "isKnownChat"> & { settings: MediaConfig };

/** Outbound delivery with receipts. */
function createDeliverer(deps: DelivererSetup): Deliverer {
  const { settings, store } = deps;
  return new Deliverer({
    channelOf: deps.channelOf,
    outbound: deps.outbound,
    ledger: new ReceiptLedger(store),
    memory: new DeliveryMemory(store, settings.dedupTtlHours * HOUR_MS),
    isKnownChat: deps.isKnownChat,
    ffmpeg: new Ffmpeg(settings.ffmpegPath),
    sendTimeoutMs: settings.sendTimeoutMs,
    secrets: deps.secrets,
  });
}
