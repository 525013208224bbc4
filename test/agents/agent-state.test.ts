/**
 * What an agent keeps: a task created under an agent runs as that agent's turn, and an agent with `memory: agent`
 * keeps what it learns apart from the person's memories the default agent sees.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { systemPromptOf, toolResultsOf } from "../fakes/openai-server.js";
import { schedulerFeature } from "../../src/features/scheduler.js";
import { closeInOrder } from "../helpers/close.js";

let t: TestGateway | undefined;
afterEach(() => closeInOrder([t]).then(() => (t = undefined)));

const SUPPORT_PROMPT = "You answer questions about the product manual, politely.";

async function withSupportAgent(support: Record<string, unknown> = {}): Promise<TestGateway> {
  t = await startTestGateway({
    agents: { support: { name: "Helpdesk", prompt: SUPPORT_PROMPT, ...support } },
    routing: [{ match: { chat: "support-room" }, agent: "support" }],
  });
  return t;
}

describe("an agent's tasks and memories", () => {
  it("a task created under an agent runs with that agent", async () => {
    const t = await withSupportAgent();
    t.fake.enqueue(
      { toolCalls: [{ name: "schedule_task", arguments: { name: "digest", kind: "agent_task", message: "summarize the manual changes", when: { in: "1h" } } }] },
      { text: "Scheduled." },
    );
    await t.post({ chatId: "support-room", userId: "alice", text: "every hour, summarize the manual changes" });
    const created = toolResultsOf(t.fake.requests[1]!)[0]!.content as { task_id: string };
    expect(created.task_id).toEqual(expect.any(String));

    t.fake.enqueue({ text: "No changes to the manual." });
    const scheduler = t.gateway.feature(schedulerFeature)!.scheduler!;
    const run = await scheduler.trigger(created.task_id, { kind: "operator" });
    expect(run.status).toBe("delivered");
    const taskTurn = t.fake.requests[2]!;
    expect(systemPromptOf(taskTurn)).toContain(SUPPORT_PROMPT);
    expect(systemPromptOf(taskTurn)).toContain("You are Helpdesk.");
  });

  it("memory: agent keeps what the agent learns to itself", async () => {
    const t = await withSupportAgent({ memory: "agent" });
    t.fake.enqueue(
      { toolCalls: [{ name: "add_memory", arguments: { content: "Prefers green tea", kind: "preference" } }] },
      { text: "Noted." },
    );
    await t.post({ chatId: "support-room", userId: "alice", text: "remember that I prefer green tea" });
    expect(JSON.stringify(toolResultsOf(t.fake.requests[1]!))).not.toContain('"error"');

    t.fake.respondWith(() => ({ text: "ok" }));
    await t.post({ chatId: "home-room", userId: "alice", text: "which tea do I prefer?" });
    expect(systemPromptOf(t.fake.requests.at(-1)!)).not.toContain("green tea");
    await t.post({ chatId: "support-room", userId: "alice", text: "which tea do I prefer?" });
    expect(systemPromptOf(t.fake.requests.at(-1)!)).toContain("Prefers green tea");
  });

  it("memory: person (the default) shares the person's memories with every agent", async () => {
    const t = await withSupportAgent();
    t.fake.enqueue(
      { toolCalls: [{ name: "add_memory", arguments: { content: "Prefers green tea", kind: "preference" } }] },
      { text: "Noted." },
    );
    await t.post({ chatId: "support-room", userId: "alice", text: "remember that I prefer green tea" });
    t.fake.respondWith(() => ({ text: "ok" }));
    await t.post({ chatId: "home-room", userId: "alice", text: "which tea do I prefer?" });
    expect(systemPromptOf(t.fake.requests.at(-1)!)).toContain("Prefers green tea");
  });
});
