/**
 * DingTalk's Stream connection and QQ's gateway session are one per bot: with two replicas on one store only the
 * lease holder connects, the standby sends, and it connects when the holder stops. WeCom needs no lease (webhook).
 */
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { DingtalkChannel } from "../../src/channels/dingtalk/channel.js";
import { completeSettings as dingtalkSettings, dingtalkConfigSchema } from "../../src/channels/dingtalk/config.js";
import { channelRunner, type ChannelRunner } from "../../src/channels/leased.js";
import { QqChannel } from "../../src/channels/qq/channel.js";
import { completeSettings as qqSettings, qqConfigSchema } from "../../src/channels/qq/config.js";
import { WecomChannel } from "../../src/channels/wecom/channel.js";
import { completeSettings as wecomSettings, wecomConfigSchema } from "../../src/channels/wecom/config.js";
import { targetOf, type Channel, type InboundHandler } from "../../src/core/types.js";
import { HttpServer } from "../../src/infra/http/server.js";
import { LocalLeases } from "../../src/infra/store/local-leases.js";
import type { Store } from "../../src/infra/store/types.js";
import { startFakeDingtalk } from "../fakes/dingtalk/index.js";
import { startFakeQq } from "../fakes/qq/index.js";
import { startFakeWecom } from "../fakes/wecom/index.js";
import { eventually } from "../helpers/wait.js";
import { memoryStore } from "../scheduler/helpers.js";

const log = pino({ level: "silent" });
const TIMING = { ttlMs: 1_000, renewMs: 200, retryMs: 100 };
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const answering = (name: string, channel: Channel): InboundHandler => async (message) => {
  await channel.sendText(targetOf(message), `${name}: ${message.text}`, { replyTo: message.platformMessageId });
  return "answered";
};

async function pair(a: Channel, b: Channel): Promise<[ChannelRunner, ChannelRunner]> {
  const leases = new LocalLeases();
  const runnerA = channelRunner(a, { leases, replicaId: "a", timing: TIMING, log });
  const runnerB = channelRunner(b, { leases, replicaId: "b", timing: TIMING, log });
  cleanup.push(() => runnerA.stop(), () => runnerB.stop());
  await runnerA.start(answering("a", a));
  await runnerB.start(answering("b", b));
  return [runnerA, runnerB];
}

describe("the Chinese platforms' long connections under the replica lease", () => {
  it("DingTalk: one Stream connection, held by one replica; the standby connects when the holder stops", async () => {
    const fake = await startFakeDingtalk();
    cleanup.push(() => fake.close());
    const store: Store = memoryStore();
    const settings = dingtalkSettings(dingtalkConfigSchema.parse({ ...fake.settings(), replyFormat: "text" }));
    const [a, b] = [new DingtalkChannel({ settings, store, log }), new DingtalkChannel({ settings, store, log })];
    const [runnerA, runnerB] = await pair(a, b);
    expect(runnerA.heldLease?.()).toBe(`dingtalk:${fake.clientId}`);
    await fake.stream.waitForConnections(1);
    await fake.stream.pushRobot(fake.robotMessage("one", { from: "u1", webhookMinutes: 0 }));
    await eventually(() => fake.api.sent.find((m) => m.text === "a: one"), "the holder's answer");
    await runnerA.stop();
    await eventually(() => runnerB.heldLease?.(), "the standby to take over", 5_000);
    await fake.stream.waitForConnections(2);
    // Pushed again until acknowledged, as DingTalk does: the old connection may still be closing.
    await fake.stream.pushRobot(fake.robotMessage("two", { from: "u1", webhookMinutes: 0 }), { redeliverAfterMs: 300, maxPushes: 20 });
    await eventually(() => fake.api.sent.find((m) => m.text === "b: two"), "the new holder's answer", 5_000);
    expect(fake.stream.connections).toBe(2);
  });

  it("QQ: one gateway session, held by one replica; the standby identifies when the holder stops", async () => {
    const fake = await startFakeQq();
    cleanup.push(() => fake.close());
    const store: Store = memoryStore();
    const settings = qqSettings(qqConfigSchema.parse(fake.settings()));
    const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log });
    const [a, b] = [new QqChannel({ settings, store, log, http }), new QqChannel({ settings, store, log, http })];
    const [runnerA, runnerB] = await pair(a, b);
    expect(runnerA.heldLease?.()).toBe(`qq:${fake.appId}`);
    await fake.gateway.waitFor(() => fake.gateway.identifies.length === 1, "Identify");
    fake.dispatch(fake.c2c("one"));
    await eventually(() => fake.api.sent.find((m) => m.content === "a: one"), "the holder's answer");
    await runnerA.stop();
    await eventually(() => runnerB.heldLease?.(), "the standby to take over", 5_000);
    await fake.gateway.waitFor(() => fake.gateway.identifies.length === 2, "the standby's Identify");
    fake.dispatch(fake.c2c("two"));
    await eventually(() => fake.api.sent.find((m) => m.content === "b: two"), "the new holder's answer", 5_000);
    expect(fake.gateway.connections).toBe(2);
  });

  it("WeCom and QQ in webhook mode need no lease", async () => {
    const wecom = await startFakeWecom();
    cleanup.push(() => wecom.close());
    const http = new HttpServer({ host: "127.0.0.1", port: 0, token: null, log });
    const lease = { leases: new LocalLeases(), replicaId: "a", timing: TIMING, log };
    const callback = new WecomChannel({ settings: wecomSettings(wecomConfigSchema.parse(wecom.settings())), store: memoryStore(), log, http });
    expect(channelRunner(callback, lease)).toBe(callback);
    const webhook = new QqChannel({ settings: qqSettings(qqConfigSchema.parse({ appId: "1", appSecret: "s", mode: "webhook" })), store: memoryStore(), log, http });
    expect(channelRunner(webhook, lease)).toBe(webhook);
  });
});
