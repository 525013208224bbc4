/**
 * Socket Mode under the replica lease: two "replicas" (two Slack channels on one lease table) for one bot; only the
 * holder opens a Socket Mode connection, the standby sends without one, and takes over when the holder stops.
 */
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { channelRunner, type ChannelRunner } from "../../../src/channels/leased.js";
import { targetOf, type InboundHandler } from "../../../src/core/types.js";
import { LocalLeases } from "../../../src/infra/store/local-leases.js";
import { alice, dmOf, messageEvent, startFakeSlack, type FakeSlack } from "../../fakes/slack/index.js";
import { eventually } from "../../helpers/wait.js";
import { slackChannel } from "./harness.js";

const log = pino({ level: "silent" });
const TIMING = { ttlMs: 1_000, renewMs: 200, retryMs: 100 };
let fake: FakeSlack | undefined;
const runners: ChannelRunner[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop();
  await fake?.close();
});

describe("Slack Socket Mode under the replica lease", () => {
  it("one connection per bot: the holder receives, the standby sends, and takes over when the holder stops", async () => {
    const f = (fake = await startFakeSlack());
    const leases = new LocalLeases();
    const [a, b] = [slackChannel(f).channel, slackChannel(f).channel];
    expect(a.singleConnection).toMatch(/^slack:[0-9a-f]{16}$/);
    expect(a.singleConnection).not.toContain(f.botToken);
    const answering = (name: string): InboundHandler => async (message) => {
      await (name === "a" ? a : b).sendText(targetOf(message), `${name}: ${message.text}`);
      return "answered";
    };
    const runnerA = channelRunner(a, { leases, replicaId: "a", timing: TIMING, log });
    const runnerB = channelRunner(b, { leases, replicaId: "b", timing: TIMING, log });
    runners.push(runnerB, runnerA);
    await runnerA.start(answering("a"));
    await runnerB.start(answering("b"));
    await eventually(() => f.socket.isConnected(), "the holder's connection");
    expect(runnerB.heldLease?.()).toBeUndefined();

    f.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "one" }));
    await eventually(() => f.api.sent().find((m) => m.text === "a: one"), "the holder's answer");
    await b.sendText({ channel: "slack", chatId: dmOf(alice) }, "sent by b");
    expect(f.socket.connections).toBe(1);

    await runnerA.stop();
    await eventually(() => runnerB.heldLease?.() && f.socket.isConnected(), "the standby to take over", 5_000);
    f.pushEvent(messageEvent({ channel: dmOf(alice), user: alice, text: "two" }));
    await eventually(() => f.api.sent().find((m) => m.text === "b: two"), "the new holder's answer", 5_000);
    expect(f.api.sent().map((m) => m.text)).toEqual(["a: one", "sent by b", "b: two"]);
    expect(f.socket.connections).toBe(2);
  });

  it("the Events API needs no lease: every replica serves /slack/events", async () => {
    const f = (fake = await startFakeSlack());
    const events = slackChannel(f, { mode: "events", signingSecret: f.signingSecret }).channel;
    expect(events.singleConnection).toBeUndefined();
    expect(channelRunner(events, { leases: new LocalLeases(), replicaId: "a", timing: TIMING, log })).toBe(events);
  });
});
