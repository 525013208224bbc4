/**
 * Reminders through the whole gateway: WebChat over its WebSocket, the fake LLM over HTTP, the real scheduler on
 * SQLite and the real clock. The reminders here are seconds away, so they arrive in real time.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openChat, startTestGateway, userTextsOf, type TestGateway } from "../e2e/harness.js";
import { systemPromptOf, toolNamesOf } from "../fakes/openai-server.js";
import { until } from "../infra/store/store-contract.js";
import { schedulerFeature } from "../../src/features/scheduler.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

// Without http.token every WebChat user is the one local user, whatever id the page sends.
const ALICE = { kind: "user", channel: "web", userId: "local", isOwner: false } as const;

/** The model's side of "remind me": look up schedule_task, call it with `args`, then answer. */
function scriptScheduling(gw: TestGateway, args: object, answer: string): void {
  gw.fake.enqueue({ toolCalls: [{ name: "schedule_task", arguments: args }] }, { text: answer });
}

describe("reminders end to end (WebChat)", () => {
  it('"remind me in 2 seconds to drink water": the model calls schedule_task with `in`, and the reminder arrives once', async () => {
    t = await startTestGateway();
    scriptScheduling(t, { name: "drink water", message: "Time to drink water!", when: { in: "2 seconds" } }, "I'll remind you in 2 seconds.");
    const chat = await openChat(t.url, "water", "alice");
    chat.send({ type: "message", text: "remind me in 2 seconds to drink water" });
    await chat.waitFor((f) => f.role === "bot" && f.text === "I'll remind you in 2 seconds.");

    // The tool result the model saw: the id, the next run in the user's zone, and a sentence to repeat.
    const [scheduled] = t.fake.lastToolResults();
    const result = scheduled?.content as { task_id: string; next_runs: string[]; confirm: string; timezone: string };
    expect(result).toMatchObject({ timezone: "UTC", next_runs: [expect.stringMatching(/\(UTC, GMT\+00:00\)$/)] });
    expect(result.confirm).toMatch(/^Reminder "drink water" \(\w{8}\) is set for .* in 2 s\.$/);

    const reminder = await chat.waitFor((f) => f.role === "bot" && f.text === "Time to drink water!", 10_000);
    const scheduler = t.gateway.feature(schedulerFeature)!.scheduler!;
    await until("the run to be recorded", async () => (await scheduler.runs(result.task_id, ALICE, 5)).runs[0]?.status === "delivered");
    const { task, runs } = await scheduler.runs(result.task_id, ALICE, 5);
    expect(task.status).toBe("done");
    expect(runs).toHaveLength(1);
    expect(runs[0]!.receipts.map((r) => r.messageId)).toEqual([reminder.id]);
    expect(runs[0]!.lateMs).toBeLessThan(1_000);
    // Once: one such message in the chat, and no turn for it (what a task sends is never a user message).
    expect(chat.frames.filter((f) => f.text === "Time to drink water!")).toHaveLength(1);
    expect(t.fake.requests).toHaveLength(2);
    chat.close();
  });

  it("an agent task runs its prompt in its own session without the scheduling tools, and its answer is delivered", async () => {
    t = await startTestGateway();
    scriptScheduling(
      t,
      { name: "news digest", kind: "agent_task", message: "Write a one-line news digest.", when: { in: "1s" } },
      "Scheduled.",
    );
    t.fake.enqueue({ text: "Nothing new today." });
    const chat = await openChat(t.url, "digest", "alice");
    chat.send({ type: "message", text: "in a second, write me a news digest" });
    const delivered = await chat.waitFor((f) => f.role === "bot" && typeof f.text === "string" && f.text.startsWith("⏰"), 10_000);
    expect(delivered.text).toBe("⏰ news digest\n\nNothing new today.");

    const run = t.fake.requests[2]!;
    expect(userTextsOf(run).at(-1)).toContain("Write a one-line news digest.");
    expect(toolNamesOf(run)).not.toContain("schedule_task");
    expect(systemPromptOf(run)).not.toContain("schedule_task");
    expect(toolNamesOf(t.fake.requests[0]!)).toContain("schedule_task");
    // Its own session: the chat's history does not hold the run, the run does not hold the chat.
    expect(JSON.stringify(run.body.messages)).not.toContain("news digest, write me");
    chat.close();
  });

  it("/remind works without the model, and /tasks and /cancel manage it", async () => {
    t = await startTestGateway({}, { withLlm: false });
    const set = await t.post({ chatId: "cmd", userId: "alice", text: "/remind in 1h stretch" });
    const id = /\/cancel (\w+)/.exec(set.body.replies?.[0]?.text ?? "")?.[1];
    expect(id).toBeDefined();
    const listed = await t.post({ chatId: "cmd", userId: "alice", text: "/tasks" });
    expect(listed.body.replies?.[0]?.text).toContain(`${id}  reminder "stretch"`);
    const cancelled = await t.post({ chatId: "cmd", userId: "alice", text: `/cancel ${id}` });
    expect(cancelled.body.replies?.[0]?.text).toBe(`Cancelled "stretch" (${id}).`);
    expect(t.fake.requests).toHaveLength(0);
  });
});
