/**
 * delegate_task end to end: a helper turn with its own history for the same sender, refused deeper than the
 * configured depth, refused a tool outside its agent's list, and two helpers of one step running at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startTestGateway, userTextsOf, type TestGateway } from "../e2e/harness.js";
import { systemPromptOf, toolResultsOf, type FakeReply, type FakeRequest } from "../fakes/openai-server.js";
import { closeInOrder } from "../helpers/close.js";
import { budgetsFeature } from "../../src/features/budgets.js";

let t: TestGateway | undefined;
afterEach(() => closeInOrder([t]).then(() => (t = undefined)));

const isHelper = (request: FakeRequest): boolean => systemPromptOf(request).includes("You are a helper");
const lastUserText = (request: FakeRequest): string => userTextsOf(request).at(-1) ?? "";
const resultsOf = (request: FakeRequest): string => JSON.stringify(toolResultsOf(request));

async function start(bounds: Record<string, number> = {}): Promise<TestGateway> {
  t = await startTestGateway({
    agents: {
      ...bounds,
      default: { name: "Coordinator" },
      researcher: { name: "Researcher", prompt: "You look things up.", tools: ["get_tool_info", "delegate_task"] },
    },
  });
  return t;
}

describe("delegate_task", () => {
  it("counts the helper's model calls to the person who asked", async () => {
    const t = await start();
    t.fake.respondWith((request): FakeReply => {
      if (isHelper(request)) return { text: "Found it.", usage: { input: 300, output: 7 } };
      if (toolResultsOf(request).length === 0) return { toolCalls: [{ name: "delegate_task", arguments: { task: "look it up" } }], usage: { input: 100, output: 5 } };
      return { text: "Done.", usage: { input: 200, output: 3 } };
    });
    expect((await t.post({ chatId: "c1", userId: "alice", text: "look it up for me" })).body.replies?.[0]?.text).toBe("Done.");

    const { reader } = t.gateway.feature(budgetsFeature)!;
    const today = new Date().toISOString().slice(0, 10);
    expect(t.fake.requests.filter(isHelper)).toHaveLength(1);
    // The WebChat API's one sender: every call of the turn, the helper's included, is theirs.
    expect(await reader.report("user", today, Date.now())).toEqual([expect.objectContaining({ name: "web:local", calls: 3, input: 600, output: 15 })]);
    expect((await reader.report("work", today, Date.now())).map((row) => row.name)).toEqual(["chat"]);
  });

  it("runs a helper with its own history; a deeper helper and a tool outside its list are refused", async () => {
    const t = await start();
    t.fake.enqueue({ text: "Hello." });
    await t.post({ chatId: "c1", userId: "alice", text: "my secret plan is to paint the shed" });

    t.fake.respondWith((request): FakeReply => {
      if (isHelper(request)) {
        if (toolResultsOf(request).length === 0) {
          return {
            toolCalls: [
              { name: "write_file", arguments: { path: "x.txt", content: "x" } },
              { name: "delegate_task", arguments: { task: "go deeper" } },
            ],
          };
        }
        return { text: "The library opens at 9." };
      }
      if (toolResultsOf(request).length === 0) {
        return { toolCalls: [{ name: "delegate_task", arguments: { agent: "researcher", task: "find the library's opening hours", context: "in Zurich" } }] };
      }
      return { text: "It opens at 9." };
    });
    const reply = await t.post({ chatId: "c1", userId: "alice", text: "when does the library open?" });
    expect(reply.body.replies?.[0]?.text).toBe("It opens at 9.");

    const helperRequests = t.fake.requests.filter(isHelper);
    expect(helperRequests).toHaveLength(2);
    const [firstHelper, secondHelper] = helperRequests;
    // Its own history: the task and the context it was given, not the person's conversation.
    expect(lastUserText(firstHelper!)).toContain("find the library's opening hours");
    expect(lastUserText(firstHelper!)).toContain("in Zurich");
    expect(JSON.stringify(firstHelper!.body.messages)).not.toContain("paint the shed");
    // For the same sender as the parent's turn (whose usage and permissions it carries).
    const senderOf = (request: FakeRequest) => /sender_id="([^"]+)"/.exec(lastUserText(request))?.[1];
    const parentFirst = t.fake.requests.find((request) => lastUserText(request).includes("when does the library open?"))!;
    expect(senderOf(firstHelper!)).toBe(senderOf(parentFirst));
    expect(senderOf(firstHelper!)).toEqual(expect.any(String));
    expect(systemPromptOf(firstHelper!)).toContain("You look things up.");
    // write_file is not among the researcher's tools; the researcher is one level down, the default depth.
    const refusals = resultsOf(secondHelper!);
    expect(refusals).toContain("write_file is not available in this conversation");
    expect(refusals).toContain("A helper cannot be started here");
    // The helper's answer is the parent's tool result.
    const parentFinal = t.fake.requests.at(-1)!;
    expect(isHelper(parentFinal)).toBe(false);
    expect(toolResultsOf(parentFinal)[0]!.content).toMatchObject({ agent: "researcher", answer: "The library opens at 9." });
  });

  it("runs two helpers of one step at the same time", async () => {
    const t = await start();
    let release!: () => void;
    const bothArrived = new Promise<void>((resolve) => (release = resolve));
    let helpersSeen = 0;
    t.fake.respondWith((request): FakeReply => {
      if (isHelper(request)) {
        helpersSeen += 1;
        if (helpersSeen === 2) release();
        // Neither helper answers before the other one asked: done one after the other, this would never finish.
        return { text: `result for ${lastUserText(request).includes("north") ? "north" : "south"}`, heldUntil: bothArrived };
      }
      if (toolResultsOf(request).length === 0) {
        return {
          toolCalls: [
            { name: "delegate_task", arguments: { task: "survey the north side" } },
            { name: "delegate_task", arguments: { task: "survey the south side" } },
          ],
        };
      }
      return { text: "Both surveyed." };
    });
    const reply = await t.post({ chatId: "c2", userId: "alice", text: "survey both sides" });
    expect(reply.body.replies?.[0]?.text).toBe("Both surveyed.");
    expect(helpersSeen).toBe(2);
    const results = resultsOf(t.fake.requests.at(-1)!);
    expect(results).toContain("result for north");
    expect(results).toContain("result for south");
  });

  it("stops a helper after the step that spent its token budget, and says its answer may be partial", async () => {
    const t = await start({ delegationMaxTokens: 1_000, delegationMaxSteps: 10 });
    t.fake.respondWith((request): FakeReply => {
      if (isHelper(request)) return { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "delegate_task" } }] };
      if (toolResultsOf(request).length === 0) return { toolCalls: [{ name: "delegate_task", arguments: { task: "x".repeat(4_000) } }] };
      return { text: "Partly done." };
    });
    await t.post({ chatId: "c3", userId: "alice", text: "a long task" });
    // The system prompt and the task are past 1,000 tokens at the first step: the helper stops there.
    expect(t.fake.requests.filter(isHelper)).toHaveLength(1);
    expect(toolResultsOf(t.fake.requests.at(-1)!)[0]!.content).toMatchObject({
      answer: expect.stringContaining("budget of 1000 tokens"),
      note: expect.stringContaining("stopped at its bound"),
    });
  });
});
