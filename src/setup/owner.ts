/**
 * The owner, found by the platform itself: the set-up runs the channel on its own for a moment and waits for the
 * first direct message "/start", whose sender becomes `access.owners`. Only channels that receive over their own
 * connection (long polling, a gateway session) can; a webhook needs the gateway reachable, so those are set later
 * with `switchboard pairing`.
 */
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChannelModule } from "../channels/module.js";
import type { Translate } from "../core/i18n.js";
import { channelSettings, type Config } from "../config.js";
import { HttpServer } from "../infra/http/server.js";
import type { Logger } from "../infra/log.js";
import { createStore, type Store } from "../infra/store/index.js";

export const OWNER_WAIT_MS = 5 * 60_000;

/**
 * The sender id of the first direct "/start"; null when the channel cannot receive without the gateway. The owner
 * is welcomed in the set-up's language: nothing else is known of theirs yet.
 */
export async function waitForOwner(config: Config, module: ChannelModule, t: Translate, log: Logger, signal: AbortSignal): Promise<string | null> {
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-setup-"));
  // Also on an exit while it waits: the wizard's spinner ends the process itself on Ctrl-C.
  const removeOnExit = () => rmSync(dataDir, { recursive: true, force: true });
  process.once("exit", removeOnExit);
  let store: Store | undefined;
  try {
    store = await createStore({ url: null, dataDir, log });
    const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log });
    const channel = await module.create({ settings: channelSettings(config, module), core: config, store, log, http });
    if (channel.singleConnection === undefined) return null;
    let found: (id: string) => void = () => undefined;
    const owner = new Promise<string>((resolve, reject) => {
      found = resolve;
      signal.addEventListener("abort", () => reject(new Error(t("setup.owner.timeout"))), { once: true });
    });
    await channel.start(async (message) => {
      if (message.chat.type !== "direct" || !message.text.trim().startsWith("/start")) return "ignored";
      await channel.sendText({ channel: module.name, chatId: message.chat.id }, t("setup.owner.welcome"));
      found(message.sender.id);
      return "answered";
    });
    try {
      return await owner;
    } finally {
      await channel.stop();
    }
  } finally {
    process.off("exit", removeOnExit);
    await store?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
