/** Tools the model can use in one step: direct calls, invalid input, refusals and near-miss names. */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolPermissions } from "../../src/core/tools.js";
import { startHarness, type Harness } from "./harness.js";
import { handlerSpec } from "../helpers/handler-spec.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const guest: ToolPermissions = { holder: "a guest in a group chat", classes: ["read", "chat"] };

describe("a direct call", () => {
  it("runs a permitted tool that was never disclosed, in one step", async () => {
    h.fake.enqueue({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "hi" } }] }, { text: "Written." });

    const result = await h.turn("write hi to a.txt");

    expect(result).toEqual({ text: "Written.", steps: 2, toolCalls: ["write_file"] });
    expect(h.fake.requests).toHaveLength(2);
    expect(await readFile(join(h.workspaceDir, "a.txt"), "utf8")).toBe("hi");
  });

  it("with invalid input returns the problems with the full definition, and the corrected call runs", async () => {
    h.fake.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "fixed" } }] },
      { text: "Written." },
    );

    const result = await h.turn("write a.txt");

    expect(result).toMatchObject({ text: "Written.", steps: 3 });
    const [invalid] = h.fake.requests[1]!.body.messages!.filter((m) => m.role === "tool");
    const content = JSON.parse(String(invalid?.content)) as Record<string, unknown>;
    expect(content).toMatchObject({
      code: "invalid_input",
      error: expect.stringMatching(/^Invalid input for write_file:\n- content: /),
      definition: h.catalog.definition(h.registry.getTool("write_file")!),
    });
    expect(await readFile(join(h.workspaceDir, "a.txt"), "utf8")).toBe("fixed");
  });

  it("to a tool the sender may not use is refused with the missing permission named", async () => {
    h.fake.enqueue({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] }, { text: "Not allowed." });

    await h.turn("write", { permissions: guest });

    const [refusal] = h.fake.lastToolResults();
    const text = String(refusal?.content);
    expect(text).toMatch(/The tool write_file needs the "workspace" permission, which a guest in a group chat does not have/);
    expect(text).not.toMatch(/unavailable tool/);
    expect(h.logs.some((r) => r.msg === "tool call refused before it ran" && r.tool === "write_file")).toBe(true);
    await expect(readFile(join(h.workspaceDir, "a.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("reach the model in the refusal's own words, without the SDK's repair prefix, now and in the next turn's history", async () => {
    h.fake.enqueue({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] }, { text: "Not allowed." });
    await h.turn("write", { permissions: guest });
    const refusal = 'The tool write_file needs the "workspace" permission';
    const [now] = h.fake.lastToolResults();
    expect(String(now?.content)).toMatch(new RegExp(`^${refusal}`));

    h.fake.enqueue({ toolCalls: [{ name: "launch_rockets", arguments: {} }] }, { text: "No such tool." });
    await h.turn("launch", { permissions: guest });
    const unknown = h.fake.lastToolResults().at(-1);
    expect(String(unknown?.content)).toMatch(/^No such tool "launch_rockets"\./);

    // Every tool result any request carried, this turn's and the history's.
    const results = h.fake.requests.flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === "tool").map((m) => String(m.content)));
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(results.filter((text) => text.includes("Error repairing tool call"))).toEqual([]);
  });

  it("with the name in other case or with dashes runs the tool", async () => {
    h.fake.enqueue({ toolCalls: [{ name: "Write-File", arguments: { path: "b.txt", content: "ok" } }] }, { text: "Done." });
    const result = await h.turn("write b.txt");
    expect(result.toolCalls).toEqual(["write_file"]);
    expect(await readFile(join(h.workspaceDir, "b.txt"), "utf8")).toBe("ok");
  });

  it("to a near-miss name is no tool: the closest names come back, nothing runs or is disclosed", async () => {
    h.fake.enqueue({ toolCalls: [{ name: "write_flie", arguments: { path: "c.txt", content: "x" } }] }, { text: "Oops." });

    await h.turn("write c.txt");

    const [answer] = h.fake.lastToolResults();
    expect(String(answer?.content)).toMatch(/No such tool "write_flie"\. Closest tools: write_file\./);
    expect(String(answer?.content)).not.toContain("inputSchema");
    expect((await h.agent.sessionInfo(h.sessionKey)).disclosedTools).toEqual([]);
    await expect(readFile(join(h.workspaceDir, "c.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("never suggests a tool the sender may not use", async () => {
    h.fake.enqueue({ toolCalls: [{ name: "write_flie", arguments: {} }] }, { text: "Oops." });
    await h.turn("write", { permissions: guest });
    expect(String(h.fake.lastToolResults()[0]?.content)).not.toContain("write_file");
  });
});

describe("get_tool_info in a turn", () => {
  it("discloses nothing for a near miss (run_shell is not run_skill)", async () => {
    h.registry.register(handlerSpec("probe", async () => "ran", [
      {
        name: "run_skill",
        category: "Skills",
        shortDescription: "Use a skill on a request: run it, or get its instructions",
        description: "Runs a skill.",
        input: z.object({}),
        risk: "exec",
      },
    ]));
    h.fake.enqueue({ toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "run_shell" } }] }, { text: "No such tool." });

    await h.turn("what is run_shell?");

    const [answer] = h.fake.lastToolResults();
    expect(answer?.content).toMatchObject({ code: "unknown_tool", error: 'No tool is named "run_shell". Closest tools: run_skill.' });
    expect((await h.agent.sessionInfo(h.sessionKey)).disclosedTools).toEqual([]);
  });
});

describe("the tool set shared by turns", () => {
  it("runs each call with its own turn's context when turns run at once", async () => {
    // Each turn asks to write its own note; a request that carries the tool result gets the final answer.
    h.fake.respondWith((request) => {
      const messages = request.body.messages ?? [];
      if (messages.some((m) => m.role === "tool")) return { text: "Written." };
      const asked = JSON.stringify(messages.at(-1)?.content).match(/note-[AB]/)![0];
      return { toolCalls: [{ name: "write_file", arguments: { path: "note.txt", content: asked } }] };
    });
    const elsewhere = join(h.workspaceDir, "..", "chat-2");

    const [first, second] = await Promise.all([
      h.turn("write note-A"),
      h.turn("write note-B", { sessionKey: "web:chat-2", workspaceDir: elsewhere }),
    ]);

    expect([first.toolCalls, second.toolCalls]).toEqual([["write_file"], ["write_file"]]);
    expect(await readFile(join(h.workspaceDir, "note.txt"), "utf8")).toBe("note-A");
    expect(await readFile(join(elsewhere, "note.txt"), "utf8")).toBe("note-B");
  });

  it("is built again when a tool is replaced by one of the same name (a skill reloaded)", async () => {
    // Named as a core tool, so that its definition is sent.
    const probe = (shortDescription: string) => ({ name: "web_fetch", category: "Web", shortDescription, description: "A probe.", input: z.object({}), risk: "read" as const });
    const sentDescription = () => (h.fake.requests.at(-1)!.body.tools as Array<{ function: { name: string; description: string } }>).find((t) => t.function.name === "web_fetch")?.function.description;
    h.registry.register(handlerSpec("probe", async () => "ran", [probe("Probe the workspace the first way")]));
    h.fake.enqueue({ text: "One." }, { text: "Two." });

    await h.turn("first");
    expect(sentDescription()).toBe("Probe the workspace the first way");
    h.registry.unregister("web_fetch");
    h.registry.register(handlerSpec("probe", async () => "ran", [probe("Probe the workspace the second way")]));
    await h.turn("second");

    expect(sentDescription()).toBe("Probe the workspace the second way");
  });
});
