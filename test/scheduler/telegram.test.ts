/**
 * The end-to-end case over the fake Telegram Bot API and the fake LLM: "remind me in 2 seconds to drink
 * water" makes the model call schedule_task with `in`, and the reminder arrives once, in real time.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/server.js";
import { alice, directChat, text } from "../fakes/telegram/updates.js";
import { until } from "../infra/store/store-contract.js";
import { schedulerFeature } from "../../src/features/scheduler.js";

let t: TestGateway | undefined;
let tg: FakeTelegram | undefined;
afterEach(async () => {
  await t?.close();
  await tg?.close();
  t = tg = undefined;
});

describe("a reminder over Telegram", () => {
  it("is set by the model with `in`, arrives once after 2 seconds, and starts no turn", async () => {
    tg = await startFakeTelegram();
    t = await startTestGateway({
      channels: { telegram: { token: tg.token, apiRoot: tg.url, pollTimeoutSec: 1 } },
      access: { allowFrom: [`telegram:${alice.id}`] },
    });
    t.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "schedule_task" } }] },
      { toolCalls: [{ name: "schedule_task", arguments: { name: "drink water", message: "Time to drink water!", when: { in: "2 seconds" } } }] },
      { text: "Sure, in 2 seconds." },
    );
    const fake = tg;
    fake.addUpdate(text(directChat(), "remind me in 2 seconds to drink water"));
    await fake.waitFor(() => fake.sent.find((s) => s.text === "Sure, in 2 seconds."), 10_000);
    const scheduledAt = Date.now();
    const [, scheduled] = t.fake.lastToolResults();
    const taskId = (scheduled?.content as { task_id: string }).task_id;

    const reminder = await fake.waitFor(() => fake.sent.find((s) => s.text === "Time to drink water!"), 10_000);
    expect(reminder.chatId).toBe(String(alice.id));
    expect(Date.now() - scheduledAt).toBeGreaterThan(1_000);

    const scheduler = t.gateway.feature(schedulerFeature)!.scheduler!;
    const actor = { kind: "user", channel: "telegram", userId: String(alice.id), isOwner: false } as const;
    await until("the run to be recorded", async () => (await scheduler.get(taskId, actor)).status === "done");
    const { runs } = await scheduler.runs(taskId, actor, 5);
    expect(runs).toEqual([expect.objectContaining({ status: "delivered", receipts: [expect.objectContaining({ messageId: String(reminder.messageId) })] })]);
    expect(fake.sent.filter((s) => s.text === "Time to drink water!")).toHaveLength(1);
    // The model was asked three times, all for the user's message: the reminder itself started no turn.
    expect(t.fake.requests).toHaveLength(3);
  });
});
