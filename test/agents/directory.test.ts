/**
 * The agents engine without a gateway: which rule a message falls under, switching and its refusals, routing
 * changed from the console, and the helpers' slots and status lines.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { agentProfiles, agentsConfigSchema, routingConfigSchema } from "../../src/agents/config.js";
import { agentRoutes } from "../../src/agents/console-routes.js";
import { Delegation } from "../../src/agents/delegation.js";
import { Agents } from "../../src/agents/directory.js";
import { loadConfig } from "../../src/config.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import type { InboundMessage } from "../../src/core/types.js";
import type { TurnInput, TurnResult } from "../../src/core/turn.js";
import { createStore } from "../../src/infra/store/index.js";
import type { Store } from "../../src/infra/store/types.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { eventually } from "../helpers/wait.js";

const log = pino({ level: "silent" });
let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-agents-"));
  store = await createStore({ url: null, dataDir: dir, log, keyPrefix: "test:" });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function message(over: { channel?: string; chat?: Partial<InboundMessage["chat"]>; sender?: string } = {}): InboundMessage {
  return {
    id: "m1",
    platformMessageId: "p1",
    channel: over.channel ?? "telegram",
    chat: { id: "42", type: "group", ...over.chat },
    sender: { id: over.sender ?? "7" },
    text: "hi",
    attachments: [],
    mentionsBot: true,
    receivedAt: new Date(0),
  };
}

function agents(rules: unknown, section: Record<string, unknown> = { support: {}, sales: {} }, parallel = 3): Agents {
  return new Agents(agentProfiles(agentsConfigSchema.parse(section), dir), routingConfigSchema.parse(rules), store, parallel);
}

describe("routing", () => {
  it("takes the first rule whose every field matches; ids plain or prefixed with the channel, or in a list", async () => {
    const directory = agents([
      { match: { channel: "discord", space: "g1" }, agent: "sales" },
      { match: { chat: ["telegram:42", "99"], user: "7" }, agent: "support" },
      { match: { thread: "t1" }, agent: "sales" },
    ]);
    const chosen = async (m: InboundMessage) => (await directory.choose(m)).agent.id;
    expect(await chosen(message())).toBe("support");
    expect(await chosen(message({ sender: "8" }))).toBe("default");
    expect(await chosen(message({ channel: "discord", chat: { id: "c", space: "g1" } }))).toBe("sales");
    expect(await chosen(message({ channel: "discord", chat: { id: "c", space: "g2" } }))).toBe("default");
    expect(await chosen(message({ chat: { id: "5", threadId: "t1" } }))).toBe("sales");
  });

  it("refuses an unknown agent from the console and keeps the rules it had; null goes back to the configured ones", async () => {
    const directory = agents([{ match: { chat: "42" }, agent: "support" }]);
    const routes = agentRoutes(directory);
    const put = (rules: unknown) => routes.request("/routing", { method: "PUT", body: JSON.stringify({ rules }), headers: { "content-type": "application/json" } });

    const refused = await put([{ match: {}, agent: "nobody" }]);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_input", message: expect.stringContaining('"nobody": no such agent') });
    expect((await directory.choose(message())).agent.id).toBe("support");

    expect((await put([{ match: {}, agent: "sales" }])).status).toBe(200);
    expect((await directory.choose(message())).agent.id).toBe("sales");
    // Kept in the store: a new directory (a restart) finds the owner's rules.
    const again = agents([{ match: { chat: "42" }, agent: "support" }]);
    await again.load();
    expect((await again.choose(message())).agent.id).toBe("sales");

    await put(null);
    expect((await directory.choose(message())).agent.id).toBe("support");
    const listed = (await (await routes.request("/")).json()) as { agents: Array<{ id: string }> };
    expect(listed.agents.map((a) => a.id).sort()).toEqual(["default", "sales", "support"]);
  });

  it("switches only to the agents a rule's allowSwitch lists", async () => {
    const directory = agents([{ match: {}, agent: "support", allowSwitch: ["sales"] }]);
    expect(await directory.switchTo(message(), "default")).toEqual({ ok: false, refusal: "unknown", choices: ["support", "sales"] });
    expect(await directory.switchTo(message(), "sales")).toMatchObject({ ok: true });
    expect((await directory.choose(message())).agent.id).toBe("sales");
    // The choice is the chat's: another chat under the same rule keeps its routed agent.
    expect((await directory.choose(message({ chat: { id: "43" } }))).agent.id).toBe("support");
  });

  it("refuses a rule naming an unknown agent, or an agent naming an unknown model, at load", async () => {
    const file = join(dir, "config.yaml");
    await writeFile(file, "agents:\n  support:\n    model: huge\nrouting:\n  - match: { chat: '42' }\n    agent: sales\n");
    expect(() => loadConfig({ configPath: file, env: {} })).toThrow(/routing\.0\.agent = "sales": no such agent \(known: default, support\)/);
    expect(() => loadConfig({ configPath: file, env: {} })).toThrow(/agents\.support\.model = "huge": No model named "huge" among the entries tried/);
    const chained = join(dir, "chained.yaml");
    const llm = "llm:\n  baseUrl: http://127.0.0.1:9/v1\n  model: small\n  models:\n    big: { baseUrl: 'http://127.0.0.1:9/v1', model: big }\n  fallbacks: [big]\n";
    await writeFile(chained, `${llm}agents:\n  support:\n    model: big\n`);
    expect(loadConfig({ configPath: chained, env: {} }).agents).toMatchObject({ support: { model: "big" } });
  });

  it("checks agent ids and prompt settings, and names a prompt file it cannot read", () => {
    expect(() => agentProfiles(agentsConfigSchema.parse({ support: { promptFile: "missing.md" } }), dir)).toThrow(/agents\.support\.promptFile: cannot read/);
    expect(agentsConfigSchema.safeParse({ Support: {} }).success).toBe(false);
    expect(agentsConfigSchema.safeParse({ support: { prompt: "a", promptFile: "b" } }).success).toBe(false);
  });
});

describe("helpers", () => {
  /** A turn runner that holds every turn until the test lets it finish. */
  function heldTurns() {
    const running: Array<{ input: TurnInput; finish: (text: string) => void }> = [];
    const runner = {
      runTurn: (input: TurnInput) =>
        new Promise<TurnResult>((resolve) => {
          input.onEvent?.({ type: "status", text: "running web_search" });
          running.push({ input, finish: (text) => resolve({ text, steps: 1, toolCalls: [] }) });
        }),
    };
    return { runner, running };
  }

  it("runs at most maxParallelDelegations of a turn at once, each in its own child session, and shows what they do", async () => {
    const { runner, running } = heldTurns();
    const directory = agents([], { researcher: { name: "Researcher" } }, 2);
    const delegation = new Delegation({ turns: runner, agents: directory, limits: { maxSteps: 3, maxTokens: 5_000, historyTokenBudget: 2_000 } });
    const status: string[] = [];
    const permissions = { holder: "a guest in a group chat", classes: ["chat" as const] };
    const ctx = makeToolContext({ message: message(), permissions, showStatus: (text) => status.push(text) });
    const results = ["a", "b", "c"].map((task) => delegation.delegate({ agent: "researcher", task }, ctx));

    await eventually(() => running.length === 2 || undefined, "two helpers running");
    expect(running.map((r) => r.input.sessionKey)).toEqual(["web:chat-1:helper:researcher:0", "web:chat-1:helper:researcher:1"]);
    // The sender's permissions and chat go with the helper: its tool calls are checked against them.
    expect(running[0]!.input).toMatchObject({ agentId: "researcher", permissions, delegation: { depth: 1, maxSteps: 3, maxTokens: 5_000 } });
    expect(running[0]!.input.message).toMatchObject({ channel: "telegram", chat: { id: "42" }, sender: { id: "7" }, text: "a" });
    running[0]!.finish("first");
    await eventually(() => running.length === 3 || undefined, "the third helper after the first finished");
    expect(running[2]!.input.sessionKey).toBe("web:chat-1:helper:researcher:0");
    running[1]!.finish("second");
    running[2]!.finish("third");
    expect((await Promise.all(results)).map((r) => r.answer)).toEqual(["first", "second", "third"]);
    // One line shows every running helper.
    expect(status).toContain('Researcher: working on "a"');
    expect(status).toContain("Researcher: running web_search · Researcher: working on \"b\"");
    expect(status.at(-1)).toMatch(/^Researcher: done( · Researcher: done)*$/);
  });
});

describe("an agent's tool list in the registry", () => {
  it("refuses a call outside the calling agent's tools and handlers, whoever makes it", async () => {
    const registry = new HandlerRegistry({ log, defaultTimeoutMs: 1_000 });
    const definition = (name: string) => ({ name, category: "Test", shortDescription: `The test tool ${name} of the agents tests`, description: "Test.", input: z.object({}), risk: "read" as const });
    registry.register({ name: "notes", tools: [{ definition: definition("read_note"), run: async () => "note" }] });
    registry.register({ name: "shell", tools: [{ definition: definition("run_command"), run: async () => "ran" }] });
    const agent = agentProfiles(agentsConfigSchema.parse({ support: { tools: ["notes"] } }), dir).get("support")!;
    const ctx = makeToolContext({ agent });

    expect(await registry.executeByTool("read_note", {}, ctx)).toMatchObject({ ok: true, output: "note" });
    expect(await registry.executeByTool("run_command", {}, ctx)).toMatchObject({
      ok: false,
      code: "denied",
      error: 'The tool run_command is not among the tools of the agent "support".',
    });
  });
});
