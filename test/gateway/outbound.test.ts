/**
 * The one outbound policy, on the whole gateway against the fake Bot API: immediate retries of what is safe to
 * retry, the durable outbox for what still fails (across a restart), and a final failure logged once.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config.js";
import { startTestGateway, userTextsOf, type TestGateway } from "../e2e/harness.js";
import { faults, startFakeTelegram, type Fault, type FakeTelegram } from "../fakes/telegram/server.js";
import { directChat, text, type TgUser } from "../fakes/telegram/updates.js";
import { FAST_OUTBOUND } from "../helpers/outbound.js";
import { seededRandom } from "../helpers/seeded-random.js";
import { eventually } from "../helpers/wait.js";
import { closeInOrder } from "../helpers/close.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

const user = (n: number): TgUser => ({ id: 3000 + n, is_bot: false, first_name: `User${n}` });

async function start(extra: ConfigInput = {}): Promise<{ t: TestGateway; tg: FakeTelegram }> {
  tg = await startFakeTelegram();
  t = await startTestGateway({
    outbound: FAST_OUTBOUND,
    ...extra,
    // The plain send path is what these tests are about; streamed replies are finished by the live preview.
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1, streaming: "off" } },
    access: { dmPolicy: "open", limits: { perUser: { messages: 1000 }, perChat: { messages: 1000 }, maxConcurrentTurnsPerUser: 10 } },
  });
  // Each reply names the message it answers, so arrivals can be counted per message.
  t.fake.respondWith((request) => ({ text: `reply to ${/msg-\d+/.exec(userTextsOf(request).at(-1) ?? "")?.[0] ?? "?"}` }));
  return { t, tg };
}

const repliesTo = (fake: FakeTelegram, id: string): number => fake.sent.filter((s) => s.text === `reply to ${id}`).length;

describe("outbound: one retry policy and a durable outbox", () => {
  it("with 20% of sends answered 429 or 500 over 500 replies, all 500 arrive, none twice", { timeout: 120_000 }, async () => {
    const { t, tg } = await start({ sessions: { maxConcurrent: 16 } });
    const random = seededRandom(12);
    tg.failAtRandom("sendMessage", (): Fault | undefined => {
      const roll = random();
      if (roll < 0.1) return faults.tooManyRequests(1);
      return roll < 0.2 ? faults.serverError() : undefined;
    });
    const ids = Array.from({ length: 500 }, (_, i) => `msg-${i}`);
    ids.forEach((id, i) => tg.addUpdate(text(directChat(user(i % 50)), `${id} please`, { from: user(i % 50) })));
    await eventually(() => ids.every((id) => repliesTo(tg, id) >= 1), "all 500 replies arrived", 110_000);
    await t.gateway.outbound.outbox.stop();
    expect(ids.filter((id) => repliesTo(tg, id) !== 1)).toEqual([]);
    expect(tg.sent).toHaveLength(500);
    const failedCalls = tg.callsOf("sendMessage").length - 500;
    expect(failedCalls).toBeGreaterThan(60);
    const queued = t.logs.filter((r) => r.msg === "reply failed for now; queued in the outbox").length;
    console.info(`500 replies: ${failedCalls} sends answered 429/500, ${queued} replies went through the outbox`);
  });

  it("a reply that failed its immediate attempts waits in the store and is sent after a restart", async () => {
    const { t, tg } = await start({ outbound: { ...FAST_OUTBOUND, outboxBaseDelayMs: 600_000, outboxMaxDelayMs: 600_000 } });
    tg.fail("sendMessage", faults.serverError(), FAST_OUTBOUND.attempts);
    tg.addUpdate(text(directChat(user(1)), "msg-1 hello", { from: user(1) }));
    await eventually(async () => (await t.gateway.outbound.outbox.pending()).length === 1, "reply queued");
    expect(tg.sent).toEqual([]);
    await t.restart();
    await eventually(() => repliesTo(tg, "msg-1") === 1, "queued reply sent after the restart");
    expect(await t.gateway.outbound.outbox.pending()).toEqual([]);
    expect(tg.sent).toHaveLength(1);
  });

  it("gives up after outboxRetryMinutes and logs the failure once, with the chat", async () => {
    const { t, tg } = await start({ outbound: { ...FAST_OUTBOUND, outboxRetryMinutes: 0.005 } });
    tg.failAtRandom("sendMessage", () => faults.serverError());
    tg.addUpdate(text(directChat(user(2)), "msg-2 hello", { from: user(2) }));
    await eventually(() => t.logs.some((r) => r.msg === "reply could not be sent; given up"), "given up");
    const given = t.logs.filter((r) => r.msg === "reply could not be sent; given up");
    expect(given).toEqual([expect.objectContaining({ channel: "telegram", chatId: String(user(2).id), kind: "unavailable", traceId: expect.any(String) })]);
    expect(await t.gateway.outbound.outbox.pending()).toEqual([]);
    expect(tg.callsOf("sendMessage").length).toBeGreaterThan(FAST_OUTBOUND.attempts);
  });

  it("does not queue or resend a reply whose connection dropped after Telegram took it", async () => {
    const { t, tg } = await start();
    tg.fail("sendMessage", { kind: "dropAfter" });
    tg.addUpdate(text(directChat(user(3)), "msg-3 hello", { from: user(3) }));
    await eventually(() => t.logs.some((r) => r.msg === "sending the reply failed"), "failure logged");
    expect(repliesTo(tg, "msg-3")).toBe(1);
    expect(tg.callsOf("sendMessage")).toHaveLength(1);
    expect(await t.gateway.outbound.outbox.pending()).toEqual([]);
  });
});
