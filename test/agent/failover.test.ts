import { generateText } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { llmFailureReply } from "../../src/agent/turn-replies.js";
import { createModel } from "../../src/agent/llm.js";
import { answeredBy } from "../../src/agent/model-chain.js";
import type { ConfigInput } from "../../src/config.js";
import { configSchema } from "../../src/config.js";
import type { TurnEvent } from "../../src/core/turn.js";
import { coreCommands } from "../../src/gateway/core-commands.js";
import { SessionQueue } from "../../src/gateway/session-queue.js";
import { StopRelay } from "../../src/gateway/stop-relay.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/openai-server.js";
import { ManualClock } from "../helpers/clock.js";
import { inboundMessage, startHarness, type Harness } from "./harness.js";
import { ENGLISH } from "../../src/infra/i18n/index.js";

let h: Harness;
let backup: FakeOpenAI;
let clock: ManualClock;
beforeEach(async () => {
  h = await startHarness();
  backup = await startFakeOpenAI();
  clock = new ManualClock(Date.parse("2026-03-04T05:06:00Z"));
});
afterEach(async () => {
  await backup.close();
  await h.close();
});

/** The harness's fake as the entry "default", `backup` as the fallback "backup". */
const withBackup = (llm: ConfigInput["llm"] = {}, entry: Record<string, unknown> = {}) =>
  h.makeAgent({ models: { backup: { baseUrl: backup.url, model: "backup-model", apiKey: "sk-backup-secret", ...entry } }, fallbacks: ["backup"], ...llm }, { models: { clock } });

const failure = (status: number, message = "boom", headers?: Record<string, string>) => ({ status, body: { error: { message } }, ...(headers ? { headers } : {}) });

describe("failover between model entries", () => {
  it("answers from the fallback when the primary answers 500, then skips the cooled-down primary until the cooldown ends", async () => {
    const agent = withBackup({ cooldownSeconds: 30 });
    h.fake.enqueue(failure(500));
    backup.enqueue({ text: "from the backup" }, { text: "backup again" });

    expect((await h.turn("hello", { agent })).text).toBe("from the backup");
    expect(backup.requests[0]!.body.model).toBe("backup-model");
    // The fallback got the same conversation.
    expect(JSON.stringify(backup.requests[0]!.body.messages)).toContain("hello");
    expect(h.logs.find((r) => r.msg === "model call failed; trying the next model")).toMatchObject({ model: "default", next: "backup", failure: "unavailable" });

    expect((await h.turn("and now?", { agent })).text).toBe("backup again");
    expect(h.fake.requests).toHaveLength(1);
    expect(agent.modelStates().find((s) => s.name === "default")).toMatchObject({ state: "cooling", lastError: "HTTP 500" });

    clock.advance(30_000);
    h.fake.enqueue({ text: "the primary is back" });
    expect((await h.turn("still there?", { agent })).text).toBe("the primary is back");
    expect(h.fake.requests).toHaveLength(2);
    expect(backup.requests).toHaveLength(2);
    expect(agent.modelStates().find((s) => s.name === "default")).toMatchObject({ state: "ready" });
  });

  it("honours the primary's Retry-After over llm.cooldownSeconds", async () => {
    const agent = withBackup({ cooldownSeconds: 10 });
    h.fake.enqueue(failure(429, "slow down", { "retry-after": "120" }));
    backup.respondWith(() => ({ text: "backup" }));
    await h.turn("one", { agent });

    clock.advance(60_000);
    await h.turn("two", { agent });
    expect(h.fake.requests).toHaveLength(1);

    clock.advance(60_000);
    h.fake.enqueue({ text: "primary" });
    expect((await h.turn("three", { agent })).text).toBe("primary");
  });

  it("moves on from a primary nobody listens at, and from one that times out", async () => {
    const dead = h.makeAgent(
      { baseUrl: "http://127.0.0.1:9/v1", models: { backup: { baseUrl: backup.url, model: "backup-model" } }, fallbacks: ["backup"] },
      { models: { clock } },
    );
    backup.respondWith(() => ({ text: "backup" }));
    expect((await h.turn("anyone?", { agent: dead })).text).toBe("backup");

    const slow = withBackup({ timeoutMs: 200 });
    h.fake.enqueue({ hang: true });
    expect((await h.turn("hello?", { agent: slow })).text).toBe("backup");
    expect(slow.modelStates()[0]).toMatchObject({ name: "default", state: "cooling", lastError: "timed out" });
  });

  it("does not move on from refused credentials, and shows them to owners in /status", async () => {
    const agent = withBackup();
    h.fake.enqueue(failure(401, "invalid api key"));

    const result = await h.turn("hi", { agent });

    expect(result.text).toBe(llmFailureReply(result.errorId!));
    expect(backup.requests).toHaveLength(0);
    const status = (owner: boolean) =>
      coreCommands({
        config: configSchema.parse({ llm: { baseUrl: h.fake.url, model: "fake-model", models: { backup: { baseUrl: backup.url, model: "backup-model" } }, fallbacks: ["backup"] } }),
        agent,
        llmProblem: null,
        isOwner: () => owner,
        queue: new SessionQueue(1),
        stops: new StopRelay(h.store.bus, () => {}, h.log),
        allCommands: () => [],
        resetSession: async () => {},
      })
        .find((command) => command.name === "status")!
        .run("", { message: inboundMessage("/status"), sessionKey: h.sessionKey, log: h.log, traceId: "t", speech: ENGLISH });
    const shown = (await status(true)) as string;
    expect(shown).toContain("- default: fake-model (openai-compatible): credentials refused (HTTP 401); check llm.apiKey (LLM_API_KEY)");
    expect(shown).toContain("- backup: backup-model (openai-compatible): ready");
    expect(await status(false)).not.toContain("credentials refused");
  });

  it("moves a context too long only to an entry with a larger context window", async () => {
    const agent = h.makeAgent(
      {
        contextWindow: 8_000,
        models: {
          small: { baseUrl: backup.url, model: "small-model", contextWindow: 4_000 },
          big: { baseUrl: backup.url, model: "big-model", contextWindow: 128_000 },
        },
        fallbacks: ["small", "big"],
      },
      { models: { clock } },
    );
    h.fake.enqueue(failure(400, "This model's maximum context length is 8000 tokens"));
    backup.respondWith((request) => ({ text: `answered by ${request.body.model}` }));

    expect((await h.turn("a very long question", { agent })).text).toBe("answered by big-model");
    expect(backup.requests.map((r) => r.body.model)).toEqual(["big-model"]);
    // Too long is no outage: the primary is not cooled down.
    expect(agent.modelStates()[0]).toMatchObject({ name: "default", state: "ready" });
  });

  it("does not answer again a streamed answer that broke off after its text was shown", async () => {
    const agent = withBackup({ maxRetries: 2 });
    h.fake.enqueue({ text: "A long answer that breaks off ".repeat(20), streaming: { pieceSize: 10, failAfterChars: 200 } });
    backup.respondWith(() => ({ text: "a second answer" }));
    const events: TurnEvent[] = [];

    const result = await h.turn("go on", { agent, onEvent: (event) => events.push(event) });

    expect(result.text).toBe(llmFailureReply(result.errorId!));
    expect(backup.requests).toHaveLength(0);
    expect(h.fake.requests).toHaveLength(1);
    const texts = events.filter((e) => e.type === "text").map((e) => e.text);
    // Shown once, growing: never started over.
    expect(texts.filter((text) => text === "")).toHaveLength(0);
    expect(texts.every((text, i) => i === 0 || text.startsWith(texts[i - 1]!))).toBe(true);
  });

  it("moves a watched step on while nothing of it was shown, from an Anthropic primary to an OpenAI-compatible fallback", async () => {
    const agent = h.makeAgent(
      {
        provider: "anthropic",
        apiKey: "sk-ant-test",
        models: { backup: { baseUrl: backup.url, model: "backup-model" } },
        fallbacks: ["backup"],
      },
      { models: { clock } },
    );
    h.fake.enqueue(failure(529, "overloaded"));
    backup.enqueue({ text: "streamed by the backup", streaming: { pieceSize: 4 } });
    const events: TurnEvent[] = [];

    const result = await h.turn("hi", { agent, onEvent: (event) => events.push(event) });

    expect(result.text).toBe("streamed by the backup");
    expect(h.fake.requests[0]!.path).toBe("/v1/messages");
    // The prompt shaped for Anthropic (two system blocks) reaches the OpenAI-compatible entry as one system message.
    expect(backup.requests[0]!.body.messages!.filter((m) => m.role === "system")).toHaveLength(1);
    expect(events.filter((e) => e.type === "text").at(-1)).toMatchObject({ text: "streamed by the backup" });
  });

  it("names the entry that answered in the result's provider metadata", async () => {
    const model = createModel(
      configSchema.parse({ llm: { baseUrl: h.fake.url, model: "fake-model", maxRetries: 0, models: { backup: { baseUrl: backup.url, model: "backup-model" } }, fallbacks: ["backup"] } }).llm,
      { clock },
    );
    h.fake.enqueue({ text: "primary" });
    expect(answeredBy((await generateText({ model, prompt: "a", maxRetries: 0 })).providerMetadata)).toBe("default");
    h.fake.enqueue(failure(503));
    backup.enqueue({ text: "backup" });
    const result = await generateText({ model, prompt: "b", maxRetries: 0 });
    expect(answeredBy(result.providerMetadata)).toBe("backup");
    expect(answeredBy(result.steps[0]!.providerMetadata)).toBe("backup");
  });
});
