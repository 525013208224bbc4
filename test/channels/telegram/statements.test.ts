/** What one Telegram message costs the SQLite store, statement by statement, through the whole gateway. */
import { afterEach, describe, expect, it } from "vitest";
import { InboundDedup } from "../../../src/gateway/inbound-dedup.js";
import { UpdateInbox } from "../../../src/channels/telegram/inbox.js";
import { targetOf } from "../../../src/core/types.js";
import { startTestGateway, type TestGateway } from "../../e2e/harness.js";
import { startFakeTelegram, type FakeTelegram } from "../../fakes/telegram/server.js";
import { alice, directChat, messageOf, text } from "../../fakes/telegram/updates.js";
import { ManualClock } from "../../helpers/clock.js";
import { closeInOrder } from "../../helpers/close.js";
import { recordSql, type SqlRecording } from "../../helpers/sql-statements.js";
import { eventually, logged, startTelegram, type TelegramHarness } from "./harness.js";

const INBOX_DELETE = "DELETE FROM entry_sets WHERE set_key = ? AND id = ?";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
let h: TelegramHarness | undefined;
let sql: SqlRecording | undefined;
afterEach(async () => {
  sql?.stop();
  await closeInOrder([t, tg, h]);
  t = tg = h = sql = undefined;
});

describe("Telegram message statements on SQLite", () => {
  it("a message's inbox entry is deleted once, and the usage of two messages in one window is one tally statement", async () => {
    // Time stands still for the gateway's timers: the tally window ends only at the stop.
    const clock = new ManualClock(Date.now());
    tg = await startFakeTelegram();
    t = await startTestGateway(
      {
        channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
        access: { allowFrom: [`telegram:${alice.id}`] },
      },
      { clock },
    );
    t.fake.respondWith(() => ({ text: "hello" }));
    await eventually(() => tg!.callsOf("getUpdates").length > 0, "polling");
    sql = recordSql();
    for (const words of ["hi there", "and again"]) {
      const update = text(directChat(), words);
      tg.addUpdate(update);
      await tg.waitFor(() => tg!.sent.find((s) => s.replyTo === messageOf(update).message_id), 10_000);
    }
    await eventually(() => t!.logs.filter((line) => /Telegram update handled/.test(line.msg)).length === 2, "the intake done with both updates");
    expect(sql.count("INSERT INTO tallies")).toBe(0);
    // The stop writes the usage still waiting in memory.
    await closeInOrder([t]);
    t = undefined;
    expect(sql.count(INBOX_DELETE)).toBe(2);
    expect(sql.count("INSERT INTO tallies")).toBe(1);
  });

  it("after a crash before the answer was recorded, the replayed update is answered and its entry deleted once", async () => {
    h = await startTelegram({
      handler: (channel, received) => async (m) => {
        received.push(m);
        const dedup = new InboundDedup(h!.store, { ttlMs: 60_000, leaseMs: 60_000 });
        if ((await dedup.claim(m.id)) !== "claimed") return "duplicate";
        await channel.sendText(targetOf(m), `echo: ${m.text}`);
        await dedup.answered(m);
        await dedup.finish(m.id);
        return "answered";
      },
    });
    await h.channel.stop();
    const inbox = new UpdateInbox(h.store, h.fake.token.split(":")[0]!);
    // Recorded and acknowledged, then the process died before handling it.
    await inbox.add({ update_id: 77, ...text(directChat(), "left over") });
    sql = recordSql();
    await h.restart();
    await h.fake.waitFor(() => h!.fake.sent.find((s) => s.text === "echo: left over"));
    await eventually(() => logged(h!.logs, /Telegram update handled/), "the intake done with the update");
    await h.channel.stop();
    expect(await inbox.pending()).toEqual([]);
    expect(sql.count(INBOX_DELETE)).toBe(1);
  });

  it("an entry the handler's write did not remove (an outcome other than answered) is deleted by the channel", async () => {
    h = await startTelegram({ handler: (_channel, received) => async (m) => (received.push(m), "ignored") });
    const inbox = new UpdateInbox(h.store, h.fake.token.split(":")[0]!);
    sql = recordSql();
    h.fake.addUpdate(text(directChat(), "not for the bot"));
    await eventually(() => logged(h!.logs, /Telegram update handled/), "the intake done with the update");
    await eventually(async () => (await inbox.pending()).length === 0, "the entry deleted");
    expect(sql.count(INBOX_DELETE)).toBe(1);
  });
});
