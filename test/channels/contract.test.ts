/** Every adapter against its fake, through the one shared contract (test/channels/contract.ts). */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DiscordChannel } from "../../src/channels/discord/channel.js";
import { FeishuChannel } from "../../src/channels/feishu/channel.js";
import { feishuConfigSchema } from "../../src/channels/feishu/config.js";
import { SlackChannel } from "../../src/channels/slack/channel.js";
import { slackConfigSchema } from "../../src/channels/slack/config.js";
import { TelegramChannel } from "../../src/channels/telegram/channel.js";
import { createWebChannel, type WebChannel } from "../../src/channels/web/index.js";
import { Transcript } from "../../src/channels/web/transcript.js";
import { telegramConfigSchema } from "../../src/channels/telegram/config.js";
import type { Channel } from "../../src/core/types.js";
import { HttpServer } from "../../src/infra/http/server.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { messagePayload, startFakeDiscord, user } from "../fakes/discord/index.js";
import { startFakeFeishu } from "../fakes/feishu/index.js";
import { alice, dmOf, messageEvent, startFakeSlack } from "../fakes/slack/index.js";
import { textEvent } from "../fakes/feishu/events.js";
import { faults, startFakeTelegram } from "../fakes/telegram/server.js";
import { eventually } from "../helpers/wait.js";
import { TestSocket } from "./web/ws-client.js";
import { WhatsAppChannel } from "../../src/channels/whatsapp/channel.js";
import { startFakeWhatsApp } from "../fakes/whatsapp/index.js";
import { alice as waAlice, text as waText } from "../fakes/whatsapp/notifications.js";
import { whatsappSettings } from "./whatsapp/harness.js";
import { MatrixChannel } from "../../src/channels/matrix/channel.js";
import { startFakeMatrix, serverError, textMessage } from "../fakes/matrix/index.js";
import { alice as mxAlice, FAST_SYNC, matrixSettings } from "./matrix/harness.js";
import { directChat, text } from "../fakes/telegram/updates.js";
import { discordConfig } from "./discord/helpers.js";
import { memoryStore, silentLog } from "../scheduler/helpers.js";
import { FAST_POLLING, FAST_RETRY } from "./telegram/harness.js";
import { channelContract, type ContractRig } from "./contract.js";
import { echoChannel, echoPlatform } from "./echo-channel/index.js";
import { DingtalkChannel } from "../../src/channels/dingtalk/channel.js";
import { completeSettings as dingtalkSettings, dingtalkConfigSchema } from "../../src/channels/dingtalk/config.js";
import { WecomChannel } from "../../src/channels/wecom/channel.js";
import { completeSettings, wecomConfigSchema } from "../../src/channels/wecom/config.js";
import { QqChannel } from "../../src/channels/qq/channel.js";
import { completeSettings as qqSettings, qqConfigSchema } from "../../src/channels/qq/config.js";
import { startFakeDingtalk } from "../fakes/dingtalk/index.js";
import { startFakeWecom } from "../fakes/wecom/index.js";
import { startFakeQq } from "../fakes/qq/index.js";

/** Runs one instance at a time; `build` makes a new one on the same store. */
function instances<C extends Channel>(build: () => C | Promise<C>, after: (channel: C) => Promise<void> = async () => {}) {
  let current: C | undefined;
  return {
    start: async (handler: Parameters<Channel["start"]>[0]): Promise<Channel> => {
      current = await build();
      await current.start(handler);
      return current;
    },
    stop: async (): Promise<void> => {
      if (current) {
        await current.stop();
        await after(current);
      }
      current = undefined;
    },
  };
}

channelContract("echo (the test-only fifth channel)", async () => {
  const store = memoryStore();
  const settings = echoChannel.configSchema.parse({});
  echoPlatform.sent.length = 0;
  const run = instances(() => echoChannel.create({ settings, store, log: silentLog, core: undefined as never, http: undefined as never }));
  const rig: ContractRig = {
    ...run,
    inject: async (body) => void (await echoPlatform.post("chat-1", "user-1", body)),
    sent: () => echoPlatform.sent.map((s) => s.text),
    failNextSend: () => echoPlatform.failNext({ kind: "unavailable" }),
    target: { channel: "echo", chatId: "chat-1" },
    close: () => run.stop(),
  };
  return rig;
});

channelContract("discord", async () => {
  const fake = await startFakeDiscord();
  const store = memoryStore();
  const alice = user("alice");
  const general = fake.world.general.id;
  const run = instances(() => new DiscordChannel({ config: discordConfig(fake), log: silentLog, store }));
  return {
    ...run,
    inject: async (body) => void fake.dispatch("MESSAGE_CREATE", messagePayload({ channelId: general, guildId: fake.world.guild.id, author: alice, content: body })),
    sent: () => fake.messages.map((m) => String(m.payload.content)),
    failNextSend: () => fake.failNext({ method: "POST", path: /\/messages$/, status: 500 }),
    target: { channel: "discord", chatId: general },
    close: async () => {
      await run.stop();
      await fake.close();
    },
  };
});

channelContract("telegram", async () => {
  const fake = await startFakeTelegram();
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-contract-"));
  const store = await createStore({ url: null, dataDir, log: silentLog });
  const settings = telegramConfigSchema.parse({ token: fake.token, apiRoot: fake.url, pollTimeoutSec: 1 });
  let http: HttpServer | undefined;
  const run = instances(
    () => {
      http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
      return new TelegramChannel({ settings, token: fake.token, store, log: silentLog, http, retry: FAST_RETRY, polling: FAST_POLLING });
    },
    async () => http?.stop(),
  );
  return {
    ...run,
    inject: async (body) => void fake.addUpdate(text(directChat(), body)),
    sent: () => fake.sent.map((s) => s.text ?? ""),
    failNextSend: () => fake.fail("sendMessage", faults.serverError()),
    target: { channel: "telegram", chatId: String(directChat().id) },
    close: async () => {
      await run.stop();
      await store.close();
      await fake.close();
    },
  };
});

channelContract("feishu", async () => {
  const fake = await startFakeFeishu();
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-contract-"));
  const store = await createStore({ url: null, dataDir, log: silentLog });
  const config = feishuConfigSchema.parse({ appId: fake.appId, appSecret: fake.appSecret, domain: fake.url, replyFormat: "text", maxMessageLength: 1000 });
  let current: FeishuChannel | undefined;
  const run = instances(() => {
    const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
    current = new FeishuChannel({ config: { ...config, appId: fake.appId, appSecret: fake.appSecret }, store, log: silentLog, http, dedupTtlMs: 3_600_000 });
    return current;
  });
  return {
    ...run,
    inject: async (body) => {
      await eventually(() => current?.status().connected, "the long connection");
      await fake.pushSocket(textEvent(body, { chatId: "oc_contract" }));
    },
    sent: () => fake.api.sent.map((m) => String(m.content.text ?? "")),
    failNextSend: () => fake.api.fail(/\/messages$/, 1, { status: 503, msg: "unavailable" }),
    target: { channel: "feishu", chatId: "oc_contract" },
    close: async () => {
      await run.stop();
      await store.close();
      await fake.close();
    },
  };
});

channelContract("slack", async () => {
  const fake = await startFakeSlack();
  const store = memoryStore();
  const settings = slackConfigSchema.parse({ botToken: fake.botToken, appToken: fake.appToken, apiUrl: fake.apiUrl });
  const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
  const run = instances(() => new SlackChannel({ settings: { ...settings, botToken: fake.botToken }, store, log: silentLog, http }));
  const dm = dmOf(alice);
  return {
    ...run,
    inject: async (body) => {
      await eventually(() => fake.socket.isConnected(), "the Socket Mode connection");
      fake.pushEvent(messageEvent({ channel: dm, user: alice, text: body }));
    },
    sent: () => fake.api.sent().map((m) => m.text),
    failNextSend: () => fake.api.failNext("chat.postMessage", { status: 503 }),
    target: { channel: "slack", chatId: dm },
    close: async () => {
      await run.stop();
      await fake.close();
    },
  };
});

/**
 * The store with one fault: while `down` is set, the next write of a WebChat transcript fails as a store that
 * lost its connection would (WebChat's platform is the transcript: a reply is shown once it is recorded there).
 */
function storeWithTranscriptFault(store: Store): { store: Store; failNextWrite(): void } {
  let down = false;
  const fault = <T extends object>(target: T, wrap: (key: PropertyKey, value: unknown) => unknown): T =>
    new Proxy(target, {
      get(t, key) {
        const value: unknown = Reflect.get(t, key);
        const wrapped = wrap(key, value);
        return typeof wrapped === "function" ? (wrapped as (...args: unknown[]) => unknown).bind(t) : wrapped;
      },
    });
  const faulty = fault(store, (key, value) =>
    key === "namespace"
      ? (name: Parameters<Store["namespace"]>[0]) => {
          const namespace = store.namespace(name);
          if (name !== "web") return namespace;
          return fault(namespace, (k, v) =>
            k === "set" && down
              ? () => {
                  down = false;
                  return Promise.reject(new Error("the store lost its connection"));
                }
              : v,
          );
        }
      : value,
  );
  return { store: faulty, failNextWrite: () => (down = true) };
}

channelContract("web", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-contract-"));
  const realStore = await createStore({ url: null, dataDir, log: silentLog });
  const { store, failNextWrite } = storeWithTranscriptFault(realStore);
  const chatId = "contract-chat";
  let http: HttpServer | undefined;
  let current: WebChannel | undefined;
  let url = "";
  const stop = async (): Promise<void> => {
    await current?.stop();
    await http?.stop();
    current = http = undefined;
  };
  return {
    start: async (handler) => {
      http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
      current = createWebChannel({ store, log: silentLog, http, dataDir, maxTextLength: 1000, trustUserIds: false });
      await current.start(handler);
      url = (await http.start()).url;
      return current;
    },
    stop,
    // A person in the chat page: the message is in once the page sees it shown.
    inject: async (body) => {
      const { socket } = await TestSocket.hello(url, chatId);
      socket.send({ type: "message", text: body });
      await socket.next("message", (frame) => frame.role === "user" && frame.text === body);
      await socket.close();
    },
    // WebChat's platform is the transcript the page shows.
    sent: async () => (await new Transcript(realStore).list(chatId)).filter((e) => e.role === "bot").map((e) => e.text),
    failNextSend: failNextWrite,
    target: { channel: "web", chatId },
    close: async () => {
      await stop();
      await realStore.close();
    },
  };
});

channelContract("whatsapp", async () => {
  const fake = await startFakeWhatsApp();
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-contract-"));
  const store = await createStore({ url: null, dataDir, log: silentLog });
  let http: HttpServer | undefined;
  let hook = "";
  const run = instances(
    () => {
      http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
      return new WhatsAppChannel({ settings: whatsappSettings(fake, { readReceipts: false }), store, log: silentLog, http });
    },
    async () => http?.stop(),
  );
  return {
    ...run,
    // The webhook route exists once the channel started; the server listens after that, as in the gateway.
    start: async (handler) => {
      const channel = await run.start(handler);
      hook = `${(await http!.start()).url}/whatsapp/webhook`;
      return channel;
    },
    inject: async (body) => {
      const { status } = await fake.deliver(hook, fake.inbound(waAlice, waText(body)));
      if (status !== 200) throw new Error(`the webhook answered ${status}`);
    },
    sent: () => fake.sent.map((m) => m.text),
    failNextSend: () => fake.failNext(/\/messages$/, { status: 500, code: 1, message: "An unknown error occurred" }),
    target: { channel: "whatsapp", chatId: waAlice.waId },
    close: async () => {
      await run.stop();
      await store.close();
      await fake.close();
    },
  };
});

channelContract("matrix", async () => {
  const fake = await startFakeMatrix();
  const dm = fake.createRoom({ people: [mxAlice] });
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-contract-"));
  const store = await createStore({ url: null, dataDir, log: silentLog });
  let current: MatrixChannel | undefined;
  const run = instances(() => (current = new MatrixChannel({ settings: matrixSettings(fake, { streaming: "off" }), store, log: silentLog, timing: FAST_SYNC })));
  return {
    ...run,
    inject: async (body) => {
      // Connected once a sync token is stored: what is posted from then on is answered, not skipped as history.
      await eventually(() => current?.status().connected, "the sync");
      fake.post(dm, mxAlice.id, textMessage(body));
    },
    sent: () => fake.botEvents().map((e) => String(e.content.body)),
    failNextSend: () => fake.failNext(/\/send\//, serverError()),
    target: { channel: "matrix", chatId: dm },
    close: async () => {
      await run.stop();
      await store.close();
      await fake.close();
    },
  };
});

channelContract("wecom", async () => {
  const fake = await startFakeWecom();
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-contract-"));
  const store = await createStore({ url: null, dataDir, log: silentLog });
  const settings = completeSettings(wecomConfigSchema.parse({ ...fake.settings(), replyFormat: "text" }));
  let http: HttpServer | undefined;
  let callback: string | undefined;
  const run = instances(
    () => {
      http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
      return new WecomChannel({ settings, store, log: silentLog, http });
    },
    async () => http?.stop(),
  );
  return {
    ...run,
    start: async (handler) => {
      const channel = await run.start(handler);
      callback = `${(await http!.start()).url}/wecom/callback`;
      return channel;
    },
    inject: async (body) => void (await fake.pushText(callback!, "contract_user", body)),
    sent: () => fake.api.sent.map((m) => m.text),
    failNextSend: () => fake.api.fail(/\/message\/send$/, 1, { status: 503 }),
    target: { channel: "wecom", chatId: "contract_user" },
    close: async () => {
      await run.stop();
      await store.close();
      await fake.close();
    },
  };
});

channelContract("dingtalk", async () => {
  const fake = await startFakeDingtalk();
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-contract-"));
  const store = await createStore({ url: null, dataDir, log: silentLog });
  const settings = dingtalkSettings(dingtalkConfigSchema.parse({ ...fake.settings(), replyFormat: "text", maxMessageLength: 1000 }));
  const run = instances(() => new DingtalkChannel({ settings, store, log: silentLog, backoff: { baseMs: 10, maxMs: 50 } }));
  return {
    ...run,
    start: async (handler) => {
      const connections = fake.stream.connections;
      const channel = await run.start(handler);
      await fake.stream.waitForConnections(connections + 1);
      return channel;
    },
    // An expired session webhook: replies take the robot API, where failures can be injected.
    inject: async (body) => void (await fake.stream.pushRobot(fake.robotMessage(body, { from: "contract01", webhookMinutes: 0 }))),
    sent: () => fake.api.sent.map((m) => m.text),
    failNextSend: () => fake.api.fail(/batchSend$/, 1, 503),
    target: { channel: "dingtalk", chatId: "contract01" },
    close: async () => {
      await run.stop();
      await store.close();
      await fake.close();
    },
  };
});

channelContract("qq", async () => {
  const fake = await startFakeQq();
  const dataDir = await mkdtemp(join(tmpdir(), "switchboard-contract-"));
  const store = await createStore({ url: null, dataDir, log: silentLog });
  const settings = qqSettings(qqConfigSchema.parse(fake.settings()));
  const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log: silentLog });
  const run = instances(() => new QqChannel({ settings, store, log: silentLog, http, backoff: { baseMs: 10, maxMs: 50 } }));
  // QQ sends only replies: the user wrote a minute ago, so sends to the chat answer that message.
  const anchor = fake.c2c("an earlier message", { openid: "CONTRACTOPENID" });
  await store.namespace("meta").set(`qq-anchor:${fake.appId}:${anchor.chat}`, { msgId: anchor.data.id, at: Date.now() - 60_000 });
  return {
    ...run,
    start: async (handler) => {
      const identified = fake.gateway.identifies.length;
      const channel = await run.start(handler);
      await fake.gateway.waitFor(() => fake.gateway.identifies.length > identified, "Identify");
      return channel;
    },
    inject: async (body) => fake.dispatch(fake.c2c(body, { openid: "CONTRACTOPENID" })),
    sent: () => fake.api.sent.map((m) => m.content),
    failNextSend: () => fake.api.fail(/messages$/, 1, 503),
    target: { channel: "qq", chatId: anchor.chat },
    close: async () => {
      await run.stop();
      await http.stop();
      await store.close();
      await fake.close();
    },
  };
});
