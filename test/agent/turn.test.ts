import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stepLimitReply } from "../../src/agent/turn-replies.js";
import { offeredToolNamesOf, systemPromptOf, toolNamesOf } from "../fakes/openai-server.js";
import { startHarness, type Harness } from "./harness.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe("a turn with tools", () => {
  it("shows write_file's full definition on request, writes the file, answers, and remembers the disclosure", async () => {
    h.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "write_file" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "notes/todo.md", content: "- buy milk\n" } }] },
      { text: "Saved your list to notes/todo.md." },
    );

    const result = await h.turn("Please save '- buy milk' to notes/todo.md");

    expect(result).toEqual({ text: "Saved your list to notes/todo.md.", steps: 3, toolCalls: ["get_tool_info", "write_file"] });
    expect(await readFile(join(h.workspaceDir, "notes/todo.md"), "utf8")).toBe("- buy milk\n");

    const [first, second, third] = h.fake.requests;
    // The core tools the sender may use are sent from the first request on, the others are named in the catalog,
    // and the array never changes within the session.
    expect(toolNamesOf(first!)).toEqual(["get_tool_info", "write_file"]);
    expect(offeredToolNamesOf(first!)).toEqual(["get_tool_info", "write_file", "enable_thinking", "get_session_logs", "read_file", "list_directory"]);
    expect(second!.body.tools).toEqual(first!.body.tools);
    expect(third!.body.tools).toEqual(first!.body.tools);

    // The definition as text, then the family's signatures on one line.
    const infoResult = String(h.fake.requests[1]!.body.messages!.find((m) => m.role === "tool")?.content);
    expect(infoResult).toMatch(/^write_file\(path: string, content: string, append\?: boolean\)\n/);
    expect(infoResult).toContain(h.registry.getTool("write_file")!.description);
    expect(infoResult.split("\n").at(-1)).toMatch(/^Also in File System: read_file\(path: string, offset\?: number, limit\?: number\), list_directory\(/);
    expect(h.fake.lastToolResults().at(-1)?.content).toEqual({ path: "notes/todo.md", bytesWritten: 11, appended: false });

    expect((await h.agent.sessionInfo(h.sessionKey)).disclosedTools).toEqual(["write_file", "read_file", "list_directory"]);
    h.fake.enqueue({ text: "ok" });
    await h.turn("and again");
    expect(h.fake.requests[3]!.body.tools).toEqual(first!.body.tools);
  });

  it("sends each tool with its short description and compact schema", async () => {
    h.fake.enqueue({ text: "hi" });
    await h.turn("hello");
    const sent = (h.fake.requests[0]!.body.tools ?? []).find((t) => t.function?.name === "write_file");
    expect(sent?.function).toMatchObject({
      description: h.registry.getTool("write_file")!.shortDescription,
      parameters: h.catalog.compactSchema("write_file"),
    });
  });

  it("answers a call to an unknown tool and malformed arguments with errors, then goes on", async () => {
    h.fake.enqueue(
      {
        toolCalls: [
          { name: "launch_rockets", arguments: {} },
          { name: "get_tool_info", arguments: "{not json" },
        ],
      },
      { text: "Those did not work." },
    );

    const result = await h.turn("try things");

    expect(result.text).toBe("Those did not work.");
    const results = h.fake.lastToolResults().map((r) => String(r.content));
    expect(results).toHaveLength(2);
    expect(results[0]).toMatch(/No such tool "launch_rockets"\. The tools you can use are listed with your tools\./);
    expect(results[1]).toMatch(/Invalid input for tool get_tool_info/);
  });

  it("returns the registry's error object for arguments that fail the tool's schema", async () => {
    h.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "write_file" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt" } }] },
      { text: "I need the content." },
    );

    const result = await h.turn("write a.txt");

    expect(result.text).toBe("I need the content.");
    const [writeResult] = h.fake.lastToolResults().slice(-1);
    expect(writeResult?.content).toMatchObject({ code: "invalid_input", error: expect.stringContaining("content") });
  });

  it("stops at the step cap with a reply that says so, and keeps the history valid for the next turn", async () => {
    await h.close();
    h = await startHarness({ llm: { maxSteps: 2 } });
    h.fake.respondWith(() => ({ toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "read_file" } }] }));

    const result = await h.turn("loop forever");

    expect(result).toMatchObject({ text: stepLimitReply(2), steps: 2, toolCalls: ["get_tool_info", "get_tool_info"] });
    expect(h.fake.requests).toHaveLength(2);
    h.fake.enqueue({ text: "continuing" });
    expect((await h.turn("continue")).text).toBe("continuing");
    const roles = h.fake.requests[2]!.body.messages!.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "user"]);
  });

  it("keeps tools the access policy denies out of the tools sent and out of reach", async () => {
    h.fake.enqueue({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] }, { text: "done" });

    await h.turn("write", { allowTool: (tool) => tool.risk !== "workspace" });

    expect(offeredToolNamesOf(h.fake.requests[0]!)).toContain("read_file");
    expect(offeredToolNamesOf(h.fake.requests[0]!)).not.toContain("write_file");
    expect(systemPromptOf(h.fake.requests[0]!)).not.toContain("write_file");
    expect(String(h.fake.lastToolResults().at(-1)?.content)).toMatch(/The tool write_file is not available in this conversation/);
    await expect(readFile(join(h.workspaceDir, "a.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("blanks configured secrets in the reply", async () => {
    h.fake.enqueue({ text: "The key is sk-test-secret-key, keep it safe." });
    const result = await h.turn("what is the api key?");
    expect(result.text).toBe("The key is [REDACTED], keep it safe.");
  });

  it("says so when the model returns no text at all", async () => {
    h.fake.enqueue({ text: "" });
    const result = await h.turn("hello?");
    expect(result.text).toMatch(/empty answer/);
    expect(result.errorId).toBeUndefined();
  });

  it("logs the turn at info level without the message text, with its traceId", async () => {
    h.fake.enqueue({ text: "the secret reply" });
    await h.turn("my private words", { traceId: "trace-info" });
    const info = h.logs.filter((r) => r.level >= 30);
    expect(info.some((r) => r.msg === "turn finished" && r.traceId === "trace-info")).toBe(true);
    const infoText = JSON.stringify(info);
    expect(infoText).not.toContain("my private words");
    expect(infoText).not.toContain("the secret reply");
  });
});
