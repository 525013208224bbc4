/** enable_thinking and get_session_logs through real turns: what the fake LLM servers receive, what is logged. */
import { afterEach, describe, expect, it } from "vitest";
import { inboundMessage, startHarness, type Harness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("enable_thinking", () => {
  it("sends reasoning_effort to an OpenAI-compatible model from the next message, and stops when turned off", async () => {
    h = await startHarness({ llm: { reasoning: true } });
    h.fake.enqueue(
      { toolCalls: [{ name: "enable_thinking", arguments: { enabled: true, level: "high" } }] },
      { text: "Thinking is on." },
      { text: "42" },
      { toolCalls: [{ name: "enable_thinking", arguments: { enabled: false } }] },
      { text: "Off." },
      { text: "43" },
    );

    await h.turn("think harder from now on");
    await h.turn("what is 6 x 7?");
    await h.turn("stop thinking");
    await h.turn("and 6 x 7 + 1?");

    const effort = h.fake.requests.map((r) => r.body.reasoning_effort);
    expect(effort).toEqual([undefined, undefined, "high", "high", "high", undefined]);
  });

  it("sends Anthropic extended thinking with a budget", async () => {
    h = await startHarness({ llm: { provider: "anthropic", apiKey: "sk-ant-test", reasoning: true, maxOutputTokens: 4000 } });
    h.fake.enqueue(
      { toolCalls: [{ name: "enable_thinking", arguments: { enabled: true, level: "low" } }] },
      { text: "On." },
      { text: "42" },
    );

    await h.turn("think");
    await h.turn("what is 6 x 7?");

    expect(h.fake.requests[0]!.body.thinking).toBeUndefined();
    expect(h.fake.requests[2]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });

  it("says plainly that the model cannot reason, and sends no option", async () => {
    h = await startHarness();
    h.fake.enqueue({ toolCalls: [{ name: "enable_thinking", arguments: { enabled: true } }] }, { text: "Not possible." }, { text: "ok" });

    await h.turn("think");
    await h.turn("again");

    expect(h.fake.requests[1]!.body.messages!.find((m) => m.role === "tool")?.content).toMatch(/is not set up for reasoning/);
    expect(h.fake.requests.map((r) => r.body.reasoning_effort)).toEqual([undefined, undefined, undefined]);
  });
});

describe("get_session_logs", () => {
  it("shows the previous turn's tool calls, errors and error ids, and never another session's", async () => {
    h = await startHarness();
    h.fake.enqueue(
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "missing.txt" } },
          { name: "write_file", arguments: { path: "a.txt", content: "x" } },
          { name: "list_directory", arguments: "{not json" },
          { name: "launch_rockets", arguments: {} },
        ],
      },
      { text: "Wrote a.txt; missing.txt does not exist." },
      { status: 500, body: { error: { message: "upstream down" } } },
      { toolCalls: [{ name: "get_session_logs", arguments: { turns: 5 } }] },
      { text: "Here is what happened." },
    );

    await h.turn("read missing.txt and write a.txt");
    const failed = await h.turn("and then?");
    await h.turn("what went wrong?");

    const logs = h.fake.lastToolResults().at(-1);
    const turns = (logs?.content as { turns: Array<Record<string, unknown>> }).turns;
    expect(turns).toHaveLength(2);
    expect(turns[0]).toMatchObject({ outcome: "answered", steps: 2 });
    // Calls of one step run in parallel: their order in the log is not fixed.
    const calls = turns[0]!.toolCalls as Array<{ tool: string }>;
    expect([...calls].sort((a, b) => a.tool.localeCompare(b.tool))).toEqual([
      { tool: "launch_rockets", ok: false, code: "unknown_tool", error: expect.stringContaining("No such tool"), durationMs: 0 },
      { tool: "list_directory", ok: false, code: "invalid_input", error: expect.stringContaining("JSON parsing failed"), durationMs: 0 },
      { tool: "read_file", ok: false, code: "failed", error: expect.stringContaining("missing.txt"), durationMs: expect.any(Number) },
      { tool: "write_file", ok: true, durationMs: expect.any(Number) },
    ]);
    expect(turns[1]).toMatchObject({ outcome: "failed", errorId: failed.errorId, toolCalls: [] });

    h.fake.enqueue({ toolCalls: [{ name: "get_session_logs", arguments: {} }] }, { text: "Nothing here." });
    const other = inboundMessage("what happened?", { chat: { id: "chat-2", type: "direct" } });
    await h.turn("what happened?", { sessionKey: "web:chat-2", message: other });
    const otherLogs = h.fake.lastToolResults().at(-1);
    expect(otherLogs?.content).toMatchObject({ turns: [], note: expect.stringMatching(/No earlier turns/) });
    expect(JSON.stringify(otherLogs?.content)).not.toContain("write_file");
  });

  it("keeps configured secrets out of logged errors", async () => {
    h = await startHarness();
    h.fake.enqueue(
      { toolCalls: [{ name: "read_file", arguments: { path: "sk-test-secret-key.txt" } }] },
      { text: "No such file." },
      { toolCalls: [{ name: "get_session_logs", arguments: {} }] },
      { text: "Done." },
    );
    await h.turn("read it");
    await h.turn("logs?");
    const text = JSON.stringify(h.fake.lastToolResults().at(-1)?.content);
    expect(text).toContain("read_file");
    expect(text).not.toContain("sk-test-secret-key");
  });
});
