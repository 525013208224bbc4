/**
 * Receiving under a lease, with real Telegram channels against the fake Bot API: two "replicas" (two channels on
 * one store and one lease table) poll one bot; only the holder polls, the other sends; a stop hands over.
 */
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { channelRunner, type ChannelRunner } from "../../../src/channels/leased.js";
import { TelegramChannel } from "../../../src/channels/telegram/channel.js";
import { telegramConfigSchema } from "../../../src/channels/telegram/config.js";
import { targetOf, type InboundHandler } from "../../../src/core/types.js";
import { HttpServer } from "../../../src/infra/http/server.js";
import { LocalLeases } from "../../../src/infra/store/local-leases.js";
import { startFakeTelegram, type FakeTelegram } from "../../fakes/telegram/server.js";
import { directChat, text } from "../../fakes/telegram/updates.js";
import { memoryStore } from "../../scheduler/helpers.js";
import { eventually } from "../../helpers/wait.js";

const log = pino({ level: "silent" });
const TIMING = { ttlMs: 1_000, renewMs: 200, retryMs: 100 };
let fake: FakeTelegram | undefined;
const runners: ChannelRunner[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
  await fake?.close();
});

function telegram(f: FakeTelegram, settings: Record<string, unknown> = {}): TelegramChannel {
  return new TelegramChannel({
    settings: telegramConfigSchema.parse({ token: f.token, apiRoot: f.url, pollTimeoutSec: 1, ...settings }),
    token: f.token,
    store: memoryStore(),
    log,
    http: new HttpServer({ host: "127.0.0.1", port: 0, token: null, log }),
    polling: { backoff: { baseMs: 20, maxMs: 200 } },
  });
}

/** Answers "<replica>: <text>", so the test sees which replica handled a message. */
const answering = (name: string, channel: TelegramChannel): InboundHandler => async (message) => {
  await channel.sendText(targetOf(message), `${name}: ${message.text}`);
  return "answered";
};

describe("receiving under a lease", () => {
  it("only the holder polls; the standby takes over when the holder stops; no 409 is ever served", async () => {
    const f = (fake = await startFakeTelegram());
    const leases = new LocalLeases();
    const [a, b] = [telegram(f), telegram(f)];
    expect(a.singleConnection).toBe(`telegram:${f.bot.id}`);
    const runnerA = channelRunner(a, { leases, replicaId: "a", timing: TIMING, log });
    const runnerB = channelRunner(b, { leases, replicaId: "b", timing: TIMING, log });
    runners.push(runnerB, runnerA);
    await runnerA.start(answering("a", a));
    await runnerB.start(answering("b", b));
    expect(runnerA.heldLease?.()).toBe(`telegram:${f.bot.id}`);
    expect(runnerB.heldLease?.()).toBeUndefined();
    expect(runnerB.status()).toEqual({ connected: true, detail: "standby: replica a holds the connection; this replica sends" });

    f.addUpdate(text(directChat(), "one"));
    await eventually(() => f.sent.find((s) => s.text === "a: one"), "the holder's answer");
    // The standby sends through its unstarted channel.
    await b.sendText({ channel: "telegram", chatId: String(directChat().id) }, "sent by b");

    await runnerA.stop();
    await eventually(() => runnerB.heldLease?.(), "the standby to take over", 5_000);
    f.addUpdate(text(directChat(), "two"));
    await eventually(() => f.sent.find((s) => s.text === "b: two"), "the new holder's answer", 5_000);
    expect(f.sent.map((s) => s.text)).toEqual(["a: one", "sent by b", "b: two"]);
    expect(f.conflicts()).toBe(0);
  });

  it("a webhook-mode channel needs no lease, and without a shared store nothing is wrapped", async () => {
    const f = (fake = await startFakeTelegram());
    const webhook = telegram(f, { mode: "webhook", webhook: { url: "https://bot.example.com/telegram" } });
    expect(webhook.singleConnection).toBeUndefined();
    const lease = { leases: new LocalLeases(), replicaId: "a", timing: TIMING, log };
    expect(channelRunner(webhook, lease)).toBe(webhook);
    const polling = telegram(f);
    expect(channelRunner(polling, null)).toBe(polling);
  });
});
