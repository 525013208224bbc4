/**
 * A run's attempts are the outbound service's real count: over the fake Telegram, a send answered 500 and then
 * 200 is a delivery in 2 attempts, and the run's line says so; a send refused every time fails after all of them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { schedulerFeature } from "../../src/features/scheduler.js";
import { runLine } from "../../src/scheduler/render.js";
import type { Scheduler } from "../../src/scheduler/scheduler.js";
import type { Actor } from "../../src/scheduler/types.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { faults, startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { alice } from "../fakes/telegram/updates.js";
import { closeInOrder } from "../helpers/close.js";
import { reminder } from "./helpers.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(() => closeInOrder([t, tg]).then(() => (t = tg = undefined)));

const ALICE: Actor = { kind: "user", channel: "telegram", userId: String(alice.id), isOwner: false };
const chat = { channel: "telegram", chatId: String(alice.id) } as const;

async function start(): Promise<{ t: TestGateway; tg: FakeTelegram }> {
  tg = await startFakeTelegram();
  t = await startTestGateway({
    channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
    access: { allowFrom: [`telegram:${alice.id}`] },
    outbound: { attempts: 3, baseDelayMs: 10 },
  });
  return { t, tg };
}

const scheduler = (gw: TestGateway): Scheduler => gw.gateway.feature(schedulerFeature)!.scheduler!;

async function reminderTask(gw: TestGateway): Promise<string> {
  const spec = reminder({ when: { in: "1 hour" }, text: "Stand up and stretch", target: chat, creator: { channel: "telegram", userId: String(alice.id) } });
  const { task } = await scheduler(gw).create(spec, ALICE);
  return task.id;
}

describe("a reminder's attempts", () => {
  it("are 2 when Telegram answers 500 and then 200, and the run's line says 2 attempts", async () => {
    const { t, tg } = await start();
    const id = await reminderTask(t);
    tg.fail("sendMessage", faults.serverError(), 1);

    const run = await scheduler(t).trigger(id, ALICE);

    expect(run.status).toBe("delivered");
    expect(run.attempts).toBe(2);
    expect(tg.callsOf("sendMessage")).toHaveLength(2);
    const delivered = tg.sent.filter((s) => s.text === "Stand up and stretch");
    expect(delivered).toHaveLength(1);
    expect(run.receipts.map((r) => r.messageId)).toEqual([String(delivered[0]!.messageId)]);
    expect(runLine(run, "UTC")).toContain("2 attempts");
  });

  it("are 1 when the first send goes through", async () => {
    const { t, tg } = await start();
    const id = await reminderTask(t);

    const run = await scheduler(t).trigger(id, ALICE);

    expect(run).toMatchObject({ status: "delivered", attempts: 1 });
    expect(runLine(run, "UTC")).toContain("1 attempt,");
    expect(tg.callsOf("sendMessage")).toHaveLength(1);
  });

  it("are every attempt the outbound service made when all of them failed", async () => {
    const { t, tg } = await start();
    const id = await reminderTask(t);
    tg.fail("sendMessage", faults.serverError(), 3);

    const run = await scheduler(t).trigger(id, ALICE);

    expect(run).toMatchObject({ status: "failed", attempts: 3 });
    expect(run.error).toContain("500");
    expect(tg.callsOf("sendMessage")).toHaveLength(3);
  });
});
