/**
 * The conversations of `npm run bench tokens` that need no browser or web site, through the whole gateway, with a
 * scripted model that calls the tools it needs the way models do: the round trips to the model per turn are counted.
 * A core tool (schedule_task, write_file, get_skill_info) is called in one step; a tool from the catalog costs one
 * get_tool_info first, and its family's tools none, in that message and the next ones.
 */
import { afterEach, describe, expect, it } from "vitest";
import { toolResultsOf } from "../fakes/openai-server.js";
import { CONVERSATIONS, GREETING, scriptedModel, type ScriptedConversation } from "../fakes/scripted-model.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";
import { schedulerFeature } from "../../src/features/scheduler.js";

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const byName = (name: string): ScriptedConversation => {
  const found = CONVERSATIONS.find((c) => c.name === name);
  if (!found) throw new Error(`no conversation ${name}`);
  return found;
};

/** Runs the conversation; returns the model calls each turn took and every reply. */
async function run(conversation: ScriptedConversation): Promise<{ roundTrips: number[]; replies: string[] }> {
  t = await startTestGateway();
  t.fake.respondWith(scriptedModel(conversation));
  const roundTrips: number[] = [];
  const replies: string[] = [];
  for (const [index, turn] of conversation.turns.entries()) {
    const before = t.fake.requests.length;
    const response = await t.post({ chatId: "bench", userId: "alice", messageId: `m${index}`, text: turn.text });
    expect(response.status).toBe(200);
    roundTrips.push(t.fake.requests.length - before);
    replies.push(...(response.body.replies ?? []).map((r) => r.text));
  }
  return { roundTrips, replies };
}

/** The tool results the model got, in order, across the whole conversation. */
function toolResults(): unknown[] {
  return toolResultsOf(t!.fake.requests.at(-1)!).map((r) => r.content);
}

describe("round trips to the model", () => {
  it("a reminder by message: the tool call and the answer", async () => {
    const { roundTrips, replies } = await run(byName("a reminder by message"));
    expect(roundTrips).toEqual([2]);
    expect(replies).toEqual(["Done: I will remind you to drink water in 10 minutes."]);
    expect(toolResults()).toEqual([expect.objectContaining({ confirm: expect.any(String) })]);
    expect(t!.gateway.feature(schedulerFeature)!.scheduler!.armed.due).toBe(1);
  });

  it("a plain hi: one model call", async () => {
    const { roundTrips, replies } = await run(GREETING);
    expect(roundTrips).toEqual([1]);
    expect(replies).toEqual(["Hello! How can I help?"]);
  });

  it("send me that file: write it (core), then deliver it after asking for its definition", async () => {
    const { roundTrips, replies } = await run(byName("send me that file"));
    expect(roundTrips).toEqual([2, 3]);
    expect(replies).toContain("Sent report.md.");
    expect(toolResults().at(-1)).toMatchObject({ receipts: [{ status: "delivered" }] });
  });

  it("a skill's script: get_skill_info (core), its instructions with how to run the script, the script, the answer", async () => {
    const { roundTrips } = await run(byName("run a skill's script"));
    expect(roundTrips).toEqual([3]);
    expect(toolResults().at(-1)).toMatchObject({ exitCode: 0, stdout: expect.stringContaining("Asia/Tokyo") });
  });

  it("a family learned in one message is called directly in the next, the requests repeating the earlier ones", async () => {
    const { roundTrips } = await run({
      name: "what chat is this, then its history",
      turns: [
        { text: "What chat is this?", calls: [{ name: "get_chat_info", arguments: {} }], answer: "A web chat." },
        { text: "And what was said here?", calls: [{ name: "get_chat_history", arguments: { limit: 5 } }], answer: "Just this." },
      ],
    });
    expect(roundTrips).toEqual([3, 2]);
    expect(t!.fake.requests.flatMap((r) => r.body.messages ?? []).filter((m) => JSON.stringify(m).includes('"get_tool_info"'))).not.toHaveLength(0);
    const [lastOfFirst, firstOfSecond] = t!.fake.requests.slice(2, 4).map((r) => JSON.stringify(r.body.messages));
    expect(firstOfSecond!.startsWith(lastOfFirst!.slice(0, -1))).toBe(true);
  });
});
