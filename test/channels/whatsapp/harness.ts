/** A real WhatsAppChannel over a real store and HTTP server, against the fake Cloud API, with a clock the test moves. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WhatsAppChannel } from "../../../src/channels/whatsapp/channel.js";
import { whatsappConfigSchema, type WhatsAppSettings } from "../../../src/channels/whatsapp/config.js";
import type { ButtonPress, InboundMessage } from "../../../src/core/types.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import { createStore, type Store } from "../../../src/infra/store/index.js";
import { startFakeWhatsApp, type FakeWhatsApp } from "../../fakes/whatsapp/index.js";
import { captureLog, type LogRecord } from "../../helpers/captured-log.js";

export interface WhatsAppHarness {
  fake: FakeWhatsApp;
  channel: WhatsAppChannel;
  store: Store;
  dataDir: string;
  /** The webhook's URL on the gateway's HTTP server. */
  hook: string;
  logs: LogRecord[];
  received: InboundMessage[];
  presses: ButtonPress[];
  close(): Promise<void>;
}

export function whatsappSettings(fake: FakeWhatsApp, extra: Record<string, unknown> = {}): WhatsAppSettings {
  const { accessToken, phoneNumberId, appSecret, verifyToken, apiUrl } = fake;
  return whatsappConfigSchema.parse({ accessToken, phoneNumberId, appSecret, verifyToken, apiUrl, ...extra }) as WhatsAppSettings;
}

export async function startWhatsApp(opts: { settings?: Record<string, unknown>; fake?: FakeWhatsApp } = {}): Promise<WhatsAppHarness> {
  const fake = opts.fake ?? (await startFakeWhatsApp());
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-whatsapp-"));
  const { log, logs } = captureLog([]);
  const store = await createStore({ url: null, dataDir, log });
  const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log });
  const channel = new WhatsAppChannel({ settings: whatsappSettings(fake, opts.settings), store, log, http, now: () => fake.now });
  const received: InboundMessage[] = [];
  const presses: ButtonPress[] = [];
  await channel.start(
    async (m) => {
      received.push(m);
      return "answered";
    },
    async (p) => void presses.push(p),
  );
  const { url } = await http.start();
  return {
    fake,
    channel,
    store,
    dataDir,
    hook: `${url}/whatsapp/webhook`,
    logs,
    received,
    presses,
    close: async () => {
      await channel.stop();
      await http.stop();
      await store.close();
      await fake.close();
    },
  };
}
