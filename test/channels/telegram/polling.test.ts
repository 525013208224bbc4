/** The poll loop's failure modes: conflicts, stalls, a refused token, a second loop on one token. */
import { afterEach, describe, expect, it } from "vitest";
import { TelegramChannel } from "../../../src/channels/telegram/channel.js";
import { telegramConfigSchema } from "../../../src/channels/telegram/config.js";
import { faults } from "../../fakes/telegram/server.js";
import { directChat, text } from "../../fakes/telegram/updates.js";
import { eventually, FAST_POLLING, logged, startTelegram, type TelegramHarness } from "./harness.js";

let h: TelegramHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("Telegram long polling", () => {
  it("reports a 409 conflict clearly, retries with backoff, and resumes when the other poller is gone", async () => {
    h = await startTelegram({ polling: { backoff: { baseMs: 50, maxMs: 1_000 } } });
    await eventually(() => h!.fake.callsOf("getUpdates").length > 0, "first poll");
    h.fake.fail("getUpdates", faults.conflict(), 3);
    await eventually(() => h!.channel.status().detail?.includes("409 Conflict"), "status shows the conflict");
    const warning = await eventually(() => logged(h!.logs, /polling conflict/), "conflict logged");
    expect(warning).toMatchObject({ level: 40, msg: expect.stringContaining("another process is polling this bot token, or a webhook is set") });
    h.fake.addUpdate(text(directChat(), "sent during the conflict"));
    // Three conflicts, each followed by a longer wait, then the update arrives.
    await h.fake.waitFor(() => h!.fake.sent.find((s) => s.text === "echo: sent during the conflict"));
    const waits = h.logs.filter((r) => /polling conflict/.test(r.msg)).map((r) => r.retryInMs);
    expect(waits).toEqual([50, 100, 200]);
    expect(h.channel.status()).toEqual({ connected: true, detail: "long polling" });
  });

  it("restarts a getUpdates that stopped answering (watchdog)", async () => {
    h = await startTelegram({ polling: { stallGraceMs: 300 } });
    await eventually(() => h!.fake.callsOf("getUpdates").length > 0, "first poll");
    h.fake.fail("getUpdates", { kind: "hang" });
    // Let the current poll end so the hanging one starts.
    await h.fake.waitFor(() => h!.fake.callsOf("getUpdates").length >= 2, 3_000);
    h.fake.addUpdate(text(directChat(), "after the stall"));
    await h.fake.waitFor(() => h!.fake.sent.find((s) => s.text === "echo: after the stall"), 5_000);
    expect(logged(h.logs, /watchdog restarted it/)).toBeDefined();
  });

  it("refuses a second poll loop for the same token in one process", async () => {
    h = await startTelegram();
    await eventually(() => h!.channel.status().connected, "first channel polling");
    const second = new TelegramChannel({
      settings: telegramConfigSchema.parse({ token: h.fake.token, apiRoot: h.fake.url, pollTimeoutSec: 1 }),
      token: h.fake.token,
      store: h.store,
      log: h.log,
      http: h.http,
      polling: FAST_POLLING,
    });
    await second.start(async () => "answered");
    await eventually(() => second.status().detail?.includes("already polled by this process"), "second refused");
    await second.stop();
    expect(h.channel.status().connected).toBe(true);
  });

  it("stops and says so when the token is refused", async () => {
    h = await startTelegram({ token: "42:not-the-fakes-token" });
    await eventually(() => h!.channel.status().detail === "401: the bot token was refused", "401 reported");
    expect(logged(h.logs, /refused the bot token/)).toMatchObject({ level: 50 });
  });
});
