import { afterEach, describe, expect, it } from "vitest";
import { systemPromptOf, toolResultsOf, type FakeReply, type FakeRequest } from "../fakes/openai-server.js";
import { startHarness, userTextsOf, type Harness, type HarnessOptions } from "./harness.js";

let h: Harness;
afterEach(async () => {
  await h.close();
});

const isSummaryRequest = (request: FakeRequest): boolean => systemPromptOf(request).includes("You keep compact notes");

/** Answers summary requests with `summary` (or the reply it gives), everything else from `script`, then "ok". */
function scriptWithSummaries(script: FakeReply[], summary: () => FakeReply): (request: FakeRequest) => FakeReply {
  return (request) => (isSummaryRequest(request) ? summary() : (script.shift() ?? { text: "ok" }));
}

function persistenceTests(opts: HarnessOptions): void {
  it("keeps the conversation across Agent instances on the same store, under a key with ':' and '/'", async () => {
    h = await startHarness(opts);
    h.fake.enqueue({ toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "read_file" } }] }, { text: "Nice to meet you, Ann." });
    await h.turn("My name is Ann.");

    const restarted = h.makeAgent();
    h.fake.enqueue({ text: "Your name is Ann." });
    const result = await h.turn("What is my name?", { agent: restarted });

    expect(result.text).toBe("Your name is Ann.");
    const messages = h.fake.requests[2]!.body.messages!;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(messages[4]).toMatchObject({ role: "assistant", content: "Nice to meet you, Ann." });
    expect(userTextsOf(messages)[0]).toContain("My name is Ann.");
    expect(await restarted.sessionInfo(h.sessionKey)).toMatchObject({ messages: 6, summarized: false, disclosedTools: ["read_file", "write_file", "list_directory"] });

    await restarted.resetSession(h.sessionKey);
    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ messages: 0, summarized: false, disclosedTools: [] });
  });
  it("sees turns another Agent (another replica) added since it last read the session", async () => {
    h = await startHarness(opts);
    const other = h.makeAgent();
    h.fake.enqueue({ text: "one" }, { text: "two" }, { text: "three" });
    await h.turn("first");
    await h.turn("second", { agent: other });
    await h.turn("third");

    const messages = h.fake.requests[2]!.body.messages!;
    expect(userTextsOf(messages).map((text) => /first|second|third/.exec(text)?.[0])).toEqual(["first", "second", "third"]);
    expect(messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual(["one", "two"]);
    expect(await other.sessionInfo(h.sessionKey)).toMatchObject({ messages: 6 });
  });
}

describe("session history on SQLite", () => persistenceTests({}));
describe.skipIf(!process.env.REDIS_URL)("session history on Redis", () =>
  persistenceTests({ storeUrl: process.env.REDIS_URL ?? "" }),
);

describe("session history", () => {
  it("moves an invalid stored record aside and starts the session afresh", async () => {
    h = await startHarness();
    const sessions = h.store.namespace<unknown>("sessions");
    await sessions.set(h.sessionKey, { messages: "not a list" });
    h.fake.enqueue({ text: "hello" });

    expect((await h.turn("hi")).text).toBe("hello");

    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ messages: 2 });
    const warning = h.logs.find((r) => r.msg.includes("stored session record is invalid"));
    expect(warning).toMatchObject({ sessionKey: h.sessionKey });
    expect(await sessions.get(String(warning?.quarantineKey))).toEqual({ messages: "not a list" });
  });
});

describe("session history storage", () => {
  it("appends a turn's messages: the messages stored earlier are not written again", async () => {
    h = await startHarness();
    h.fake.respondWith(() => ({ text: "ok" }));
    await h.turn("first");
    const header = (await h.store.namespace<{ generation: string; count: number }>("sessions").get(h.sessionKey))!;
    const lists = h.store.lists<unknown>("sessions");
    const listKey = `${h.sessionKey}#${header.generation}`;
    // Overwrite the stored first message: if a later save rewrote the list, the marker would be gone.
    await lists.writeFrom(listKey, 0, [{ role: "user", content: "MARKER" }, ...(await lists.read(listKey, header.count, 1))]);
    await h.turn("second");

    const stored = await lists.read(listKey, 100);
    expect(stored).toHaveLength(4);
    expect(stored[0]).toEqual({ role: "user", content: "MARKER" });
    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ messages: 4 });
  });

  it("stores plain text as strings, and keeps part lists where a message has more than text", async () => {
    h = await startHarness();
    h.fake.enqueue({ text: "Let me look.", toolCalls: [{ name: "list_directory", arguments: { path: "." } }] }, { text: "Empty." });
    await h.turn("what is here?");
    const header = (await h.store.namespace<{ generation: string; count: number }>("sessions").get(h.sessionKey))!;
    const stored = await h.store.lists<{ role: string; content: unknown }>("sessions").read(`${h.sessionKey}#${header.generation}`, 100);

    expect(stored.map((m) => [m.role, typeof m.content])).toEqual([["user", "string"], ["assistant", "object"], ["tool", "object"], ["assistant", "string"]]);
    expect(stored.at(-1)).toEqual({ role: "assistant", content: "Empty." });
    expect(stored[1]!.content).toEqual(expect.arrayContaining([{ type: "text", text: "Let me look." }, expect.objectContaining({ type: "tool-call", toolName: "list_directory" })]));
  });

  it("reads a record stored whole by an earlier version and goes on from it", async () => {
    h = await startHarness();
    const old = { messages: [{ role: "user", content: "My name is Ann." }, { role: "assistant", content: "Hi Ann." }], summary: "notes", disclosedTools: ["read_file"], updatedAt: new Date(0).toISOString() };
    await h.store.namespace<unknown>("sessions").set(h.sessionKey, old);
    h.fake.enqueue({ text: "You are Ann." });

    await h.turn("Who am I?");

    expect(userTextsOf(h.fake.requests[0]!.body.messages)[0]).toContain("My name is Ann.");
    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ messages: 4, summarized: true, disclosedTools: ["read_file"] });
  });
});

describe("history compaction", () => {
  const budget = 1_000; // tokens ("lorem ipsum " is 2 of them, "blah " 1)
  /** Turn 1 fills half the budget; turn 2 has a tool call whose result is large; turn 3 goes over budget. */
  async function fillHistory(): Promise<void> {
    await h.turn(`Here is my essay: ${"lorem ipsum ".repeat(250)}`);
    await h.turn(`Please look at the write_file tool. ${"context ".repeat(70)}`);
  }
  const turnScript = (): FakeReply[] => [
    { text: "Thanks for the essay." },
    { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "write_file" } }] },
    { text: "write_file writes text files." },
  ];

  it("counts a history over the budget in bytes but not in tokens as within it, special-token text included", async () => {
    h = await startHarness({ llm: { historyTokenBudget: budget } });
    // A reply of ~2,400 bytes but ~420 tokens: the byte size alone does not decide it, so the tokenizer counts it.
    h.fake.respondWith(scriptWithSummaries([{ text: `<|endoftext|> ${"lorem ipsum ".repeat(200)}` }], () => ({ text: "SUMMARY" })));
    await h.turn("Write something long.");

    const result = await h.turn("And now?");

    expect(result.text).toBe("ok");
    expect(h.fake.requests.filter(isSummaryRequest)).toHaveLength(0);
    expect((await h.agent.sessionInfo(h.sessionKey)).estimatedTokens).toBeLessThan(budget);
  });

  it("summarizes older turns, cutting only at a user message, and puts the summary in the next system prompt", async () => {
    h = await startHarness({ llm: { historyTokenBudget: budget } });
    h.fake.respondWith(scriptWithSummaries(turnScript(), () => ({ text: "SUMMARY: Ann shared an essay and asked about write_file." })));
    await fillHistory();
    expect(h.fake.requests.filter(isSummaryRequest)).toHaveLength(0);
    // Over budget now; compaction happens when the next turn starts.
    expect((await h.agent.sessionInfo(h.sessionKey)).estimatedTokens).toBeGreaterThan(budget);

    const result = await h.turn("What did we talk about?");

    expect(result.text).toBe("ok");
    const summaryRequests = h.fake.requests.filter(isSummaryRequest);
    expect(summaryRequests).toHaveLength(1);
    const transcript = userTextsOf(summaryRequests[0]!.body.messages).join("\n");
    expect(transcript).toContain("lorem ipsum");
    expect(transcript).toContain("Assistant called get_tool_info");
    expect(transcript).not.toContain("What did we talk about?");

    const main = h.fake.requests.at(-1)!;
    expect(systemPromptOf(main)).toContain("SUMMARY: Ann shared an essay and asked about write_file.");
    expect(main.body.messages!.map((m) => m.role)).toEqual(["system", "user"]);
    expect(userTextsOf(main.body.messages)[0]).toContain("What did we talk about?");
    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ summarized: true, messages: 2 });
  });

  it("never separates a tool call from its result, whatever the budget", async () => {
    h = await startHarness({ llm: { historyTokenBudget: budget } });
    h.fake.respondWith(scriptWithSummaries([], () => ({ text: "SUMMARY" })));
    for (let i = 0; i < 6; i++) {
      h.fake.enqueue(
        { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: i % 2 ? "write_file" : "read_file" } }] },
        { text: `answer ${i} ${"word ".repeat(40 * i)}` },
      );
      await h.turn(`question ${i} ${"filler ".repeat(30 * (6 - i))}`);
    }
    const mainRequests = h.fake.requests.filter((r) => !isSummaryRequest(r));
    expect(h.fake.requests.some(isSummaryRequest)).toBe(true);
    for (const request of mainRequests) {
      const messages = request.body.messages!;
      expect(messages[1]?.role).toBe("user");
      const callIds = messages.flatMap((m) => ((m.tool_calls as Array<{ id: string }> | undefined) ?? []).map((c) => c.id));
      expect(toolResultsOf(request).map((r) => r.toolCallId)).toEqual(callIds);
    }
  });

  it("keeps the history when summarizing fails and summarizes on a later turn", async () => {
    h = await startHarness({ llm: { historyTokenBudget: budget } });
    let summarizerUp = false;
    h.fake.respondWith(
      scriptWithSummaries(turnScript(), () =>
        summarizerUp ? { text: "SUMMARY after recovery" } : { status: 500, body: { error: { message: "down" } } },
      ),
    );
    await fillHistory();

    expect((await h.turn("third")).text).toBe("ok");
    const info = await h.agent.sessionInfo(h.sessionKey);
    expect(info).toMatchObject({ summarized: false, messages: 8 });
    expect(h.logs.some((r) => r.msg === "summarizing the session history failed" && r.level === 40)).toBe(true);

    summarizerUp = true;
    await h.turn("fourth");
    expect(systemPromptOf(h.fake.requests.at(-1)!)).toContain("SUMMARY after recovery");
    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ summarized: true });
  });

  it("drops the oldest turns and says so when summarizing fails past twice the budget", async () => {
    h = await startHarness({ llm: { historyTokenBudget: budget } });
    h.fake.respondWith(scriptWithSummaries([], () => ({ status: 500, body: { error: { message: "down" } } })));
    await h.turn(`A very long message: ${"blah ".repeat(2_100)}`);

    await h.turn("short follow-up");

    const main = h.fake.requests.at(-1)!;
    expect(main.body.messages!.map((m) => m.role)).toEqual(["system", "user"]);
    expect(systemPromptOf(main)).toMatch(/2 earlier messages were dropped without a summary on 20\d\d-/);
    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ summarized: true, messages: 2 });
  });
});
