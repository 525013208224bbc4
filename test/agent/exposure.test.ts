/**
 * Which tool definitions go with a request (agent/exposure.ts), against the fake LLM server in both wire shapes:
 * the core tools are sent, the others named in the catalog and still callable by name; an invalid call gets the
 * full definition; the tools array and the system prompt stay the same across a session's turns; a family the
 * session used is sent once compaction has summarized its definitions away.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { offeredToolNamesOf, systemPromptOf, toolNamesOf, toolResultsOf, type FakeRequest } from "../fakes/openai-server.js";
import { startHarness, type Harness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A tool result, parsed, whichever shape carried it (Anthropic's comes as text blocks). */
function resultOf(request: FakeRequest): unknown {
  const content = toolResultsOf(request).at(-1)?.content;
  if (!Array.isArray(content)) return content;
  const text = (content as Array<{ text?: string }>).map((block) => block.text ?? "").join("");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const resultText = (request: FakeRequest): string => JSON.stringify(resultOf(request));

async function putInWorkspace(dir: string, name: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, name), text);
}

describe.each(["openai-compatible", "anthropic"] as const)("tool exposure, %s", (provider) => {
  const start = async (): Promise<Harness> => (h = await startHarness({ llm: { provider } }));

  it("sends the core tools, names the others in the catalog, and runs a direct call of one that was not sent", async () => {
    const { fake, workspaceDir } = await start();
    await putInWorkspace(workspaceDir, "plan.txt", "step one: tea");
    fake.enqueue({ toolCalls: [{ name: "read_file", arguments: { path: "plan.txt" } }] }, { text: "It says tea." });

    const result = await h!.turn("What does plan.txt say?");

    expect(result).toMatchObject({ text: "It says tea.", toolCalls: ["read_file"] });
    const [first, second] = fake.requests;
    expect(toolNamesOf(first!)).toEqual(["get_tool_info", "write_file"]);
    expect(systemPromptOf(first!)).toContain("\nread_file: Read a text file from the workspace");
    expect(offeredToolNamesOf(first!)).toEqual(["get_tool_info", "write_file", "enable_thinking", "get_session_logs", "read_file", "list_directory"]);
    expect(resultText(second!)).toContain("step one: tea");
  });

  it("answers an invalid call of a catalog tool with its full definition, and the corrected call runs", async () => {
    const { fake, workspaceDir } = await start();
    await putInWorkspace(workspaceDir, "plan.txt", "step two: biscuits");
    fake.enqueue(
      { toolCalls: [{ name: "read_file", arguments: { file: "plan.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "plan.txt" } }] },
      { text: "Biscuits." },
    );

    await h!.turn("Read plan.txt");

    const [, afterInvalid, afterValid] = fake.requests;
    expect(resultOf(afterInvalid!)).toMatchObject({ code: "invalid_input", definition: expect.stringMatching(/^read_file\(path: string, offset\?: number/) });
    expect(resultText(afterValid!)).toContain("step two: biscuits");
  });

  it("keeps the tools array and the system prompt identical across the turns of a session, a disclosure included", async () => {
    const { fake } = await start();
    fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "list_directory" } }] },
      { text: "It lists folders." },
      { text: "Hello again." },
    );

    await h!.turn("What does list_directory do?");
    await h!.turn("hi");

    const [first, ...later] = fake.requests;
    for (const request of later) {
      expect(request.body.tools).toEqual(first!.body.tools);
      expect(systemPromptOf(request)).toBe(systemPromptOf(first!));
    }
    // Each request repeats the one before it and adds to its end: a prompt cache serves all it repeats.
    const messages = (request: FakeRequest): string[] => (request.body.messages ?? []).map((m) => JSON.stringify(m));
    for (const [i, request] of later.entries()) expect(messages(request).slice(0, messages(fake.requests[i]!).length)).toEqual(messages(fake.requests[i]!));
    // The disclosed definition (and its family, in brief) stays in the history instead.
    expect(resultText(later[0]!)).toContain("read_file(path: string");
  });

  it("sends the family of a tool the session was shown once compaction summarized the history", async () => {
    const { fake, store, sessionKey } = await start();
    const record = (summary: string | null) => ({
      messages: [{ role: "user", content: "What does read_file do?" }, { role: "assistant", content: "It reads files." }],
      summary,
      disclosedTools: ["read_file"],
      updatedAt: new Date(0).toISOString(),
    });
    fake.respondWith(() => ({ text: "ok" }));

    await store.namespace<unknown>("sessions").set(sessionKey, record(null));
    await h!.turn("and now?");
    await store.namespace<unknown>("sessions").set(sessionKey, record("Ann asked what read_file does."));
    await h!.turn("and now?");

    const [uncompacted, compacted] = fake.requests;
    // The definition is still in the history: nothing more is sent.
    expect(toolNamesOf(uncompacted!)).toEqual(["get_tool_info", "write_file"]);
    expect(toolNamesOf(compacted!)).toEqual(["get_tool_info", "read_file", "write_file", "list_directory"]);
    expect(systemPromptOf(compacted!)).not.toContain("\nread_file:");
    expect(systemPromptOf(compacted!)).toContain("\nget_session_logs:");
  });
});
