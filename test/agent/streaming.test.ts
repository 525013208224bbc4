import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { llmFailureReply } from "../../src/agent/turn-replies.js";
import { toolStatus } from "../../src/agent/stream.js";
import type { TurnEvent } from "../../src/core/turn.js";
import { startHarness, type Harness } from "./harness.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const textsOf = (events: TurnEvent[]): string[] => events.filter((e) => e.type === "text").map((e) => e.text);

describe("a streamed turn", () => {
  it("shows the answer growing by deltas and ends with the same text it returns", async () => {
    const answer = "# Title\n\n" + "Some **bold** words and a list:\n- one\n- two\n".repeat(20);
    h.fake.enqueue({ text: answer, streaming: { pieceSize: 7 } });
    const events: TurnEvent[] = [];

    const result = await h.turn("write something", { onEvent: (e) => events.push(e) });

    expect(result.text).toBe(answer.trim());
    const texts = textsOf(events);
    expect(texts.length).toBeGreaterThan(10);
    expect(texts.at(-1)).toBe(answer);
    // Each text event is the previous one plus its delta.
    let previous = "";
    for (const event of events) {
      if (event.type !== "text") continue;
      if (event.delta !== undefined) expect(event.text).toBe(previous + event.delta);
      previous = event.text;
    }
  });

  it("shows which tool runs, and starts the next step's text afresh", async () => {
    h.fake.enqueue(
      { text: "Let me look.", toolCalls: [{ name: "list_directory", arguments: { path: "." } }] },
      { text: "The folder is empty." },
    );
    const events: TurnEvent[] = [];

    const result = await h.turn("what is in my folder?", { onEvent: (e) => events.push(e) });

    expect(result.text).toBe("The folder is empty.");
    expect(events).toContainEqual({ type: "status", text: "Running list_directory..." });
    const status = events.findIndex((e) => e.type === "status");
    expect(textsOf(events.slice(0, status)).at(-1)).toBe("Let me look.");
    const after = textsOf(events.slice(status));
    expect(after[0]).toBe("");
    expect(after.at(-1)).toBe("The folder is empty.");
  });

  it("streams the model call only when someone watches; both ways give the same steps and reply", async () => {
    const script = () =>
      h.fake.enqueue(
        { text: "Let me look.", toolCalls: [{ name: "list_directory", arguments: { path: "." } }] },
        { text: "The folder is **empty**." },
      );
    script();
    const watched = await h.turn("what is in my folder?", { onEvent: () => {} });
    script();
    const unwatched = await h.turn("and now?");

    expect(h.fake.requests.map((r) => r.body.stream === true)).toEqual([true, true, false, false]);
    expect(unwatched).toMatchObject({ text: watched.text, steps: 2, toolCalls: ["list_directory"] });
    expect(watched).toMatchObject({ text: "The folder is **empty**.", steps: 2, toolCalls: ["list_directory"] });
  });

  it("names a skill script in the status line", () => {
    expect(toolStatus("run_skill_script", { skill_name: "stats", script_name: "stats.py" })).toBe("Running stats.py...");
    expect(toolStatus("schedule_task", { when: "in 5 minutes" })).toBe("Running schedule_task...");
  });

  it("never shows a secret, not even its first characters while it streams", async () => {
    h.fake.enqueue({ text: "the key is sk-test-secret-key, keep it", streaming: { pieceSize: 2 } });
    const events: TurnEvent[] = [];

    const result = await h.turn("what is the key?", { onEvent: (e) => events.push(e) });

    expect(result.text).toBe("the key is [REDACTED], keep it");
    for (const text of textsOf(events)) expect(text).not.toMatch(/sk-t/);
    expect(textsOf(events).at(-1)).toBe("the key is [REDACTED], keep it");
  });

  it("answers with the apology, not a half answer, when the model fails midway", async () => {
    h.fake.enqueue({ text: "A long answer that breaks off ".repeat(20), streaming: { pieceSize: 10, failAfterChars: 200 } });
    const events: TurnEvent[] = [];

    const result = await h.turn("go on", { onEvent: (e) => events.push(e) });

    expect(result.errorId).toMatch(/^[0-9a-f]{8}$/);
    expect(result.text).toBe(llmFailureReply(result.errorId!));
    expect(textsOf(events).at(-1)?.length).toBeGreaterThanOrEqual(100);
  });
});
