import { createServer } from "node:net";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { internalFailureReply, llmFailureReply } from "../../src/agent/turn-replies.js";
import { createModel } from "../../src/agent/llm.js";
import { collectSecrets } from "../../src/config.js";
import type { Namespace, NamespaceName, Store } from "../../src/infra/store/types.js";
import { startHarness, userTextsOf, type Harness } from "./harness.js";
import { sessionRecords } from "../helpers/session-records.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** A base URL on 127.0.0.1 where nothing listens. */
async function deadEndpoint(): Promise<string> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return `http://127.0.0.1:${port}/v1`;
}

function errorLogs(h: Harness): Array<Record<string, unknown>> {
  return h.logs.filter((r) => r.level >= 50);
}

describe("when the language model fails", () => {
  it("apologizes with an error id when the endpoint is down, logs the cause once, and the session goes on", async () => {
    const down = h.makeAgent({ baseUrl: await deadEndpoint() });

    const failed = await h.turn("first question", { agent: down, traceId: "trace-down" });

    expect(failed.errorId).toMatch(/^[0-9a-f]{8}$/);
    expect(failed.text).toBe(llmFailureReply(failed.errorId!));
    const errors = errorLogs(h);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ errorId: failed.errorId, traceId: "trace-down", sessionKey: h.sessionKey });
    expect(JSON.stringify(errors[0])).toMatch(/ECONNREFUSED|Cannot connect|fetch failed/);
    expect(JSON.stringify(errors[0])).not.toContain("first question");

    h.fake.enqueue({ text: "back again" });
    const next = await h.turn("second question");
    expect(next.text).toBe("back again");
    // The question asked while the model was down is still in the history.
    expect(userTextsOf(h.fake.requests[0]!.body.messages).join("\n")).toContain("first question");
  });

  it("retries a 5xx as configured, and apologizes once retries are used up", async () => {
    await h.close();
    h = await startHarness({ llm: { maxRetries: 1 } });
    const busy = { status: 503, body: { error: { message: "overloaded" } }, headers: { "retry-after-ms": "1" } };
    h.fake.enqueue(busy, { text: "second try worked" });
    expect((await h.turn("hi")).text).toBe("second try worked");

    h.fake.enqueue(busy, busy);
    const failed = await h.turn("hi again");
    expect(failed.text).toBe(llmFailureReply(failed.errorId!));
    expect(h.fake.requests).toHaveLength(4);
    expect(errorLogs(h)[0]).toMatchObject({ err: { statusCode: 503, attempts: 2 } });
  });

  it("gives up on a request that hangs past timeoutMs, and the next turn in the session works", async () => {
    await h.close();
    h = await startHarness({ llm: { timeoutMs: 200 } });
    h.fake.enqueue({ hang: true });

    const failed = await h.turn("are you there?");

    expect(failed.text).toBe(llmFailureReply(failed.errorId!));
    expect(errorLogs(h)[0]).toMatchObject({ errorId: failed.errorId, err: { name: "TimeoutError" } });
    h.fake.enqueue({ text: "yes" });
    expect((await h.turn("hello?")).text).toBe("yes");
  });

  it("keeps the finished tool steps of a turn whose later model call fails", async () => {
    h.fake.enqueue(
      { toolCalls: [{ name: "get_tool_info", arguments: { tool_name: "read_file" } }] },
      { status: 400, body: { error: { message: "context too long" } } },
    );
    const failed = await h.turn("read something");
    expect(failed).toMatchObject({ steps: 1, toolCalls: ["get_tool_info"], errorId: expect.any(String) });

    h.fake.enqueue({ text: "ok" });
    await h.turn("try again");
    const roles = h.fake.requests[2]!.body.messages!.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "user"]);
    // The tool asked about, then its family (shown in brief with it).
    expect((await h.agent.sessionInfo(h.sessionKey)).disclosedTools).toEqual(["read_file", "write_file", "list_directory"]);
  });
});

describe("when the store fails", () => {
  it("apologizes with an error id instead of throwing, and logs the store's error", async () => {
    const failingWrites: Store = {
      backend: h.store.backend,
      coordinator: h.store.coordinator,
      bus: h.store.bus,
      ping: () => h.store.ping(),
      durabilityWarnings: () => h.store.durabilityWarnings(),
      close: () => Promise.resolve(),
      lists: (name) => h.store.lists(name),
      sets: (name) => h.store.sets(name),
      tallies: (name) => h.store.tallies(name),
      write: () => Promise.reject(new Error("disk full")),
      namespace: <T>(name: NamespaceName): Namespace<T> => {
        const real = h.store.namespace<T>(name);
        return {
          get: (key) => real.get(key),
          delete: (key) => real.delete(key),
          set: () => Promise.reject(new Error("disk full")),
          setMany: () => Promise.reject(new Error("disk full")),
        };
      },
    };
    const agent = new Agent({ config: h.config, secrets: collectSecrets(h.config), model: createModel(h.config.llm), registry: h.registry, catalog: h.catalog, ...sessionRecords(failingWrites, h.log), log: h.log });

    // The user's message is saved with the reply, in one append: the store's failure shows after the model call.
    h.fake.enqueue({ text: "an answer that cannot be kept" });
    const result = await h.turn("hello", { agent });

    expect(result.text).toBe(internalFailureReply(result.errorId!));
    expect(errorLogs(h)[0]).toMatchObject({ errorId: result.errorId, msg: "turn failed", err: { message: "disk full" } });
    expect(h.fake.requests).toHaveLength(1);
  });
});

describe("when the turn is cancelled", () => {
  it("rejects with an AbortError and keeps only the user message", async () => {
    h.fake.enqueue({ hang: true });
    const controller = new AbortController();

    const turn = h.turn("a long question", { signal: controller.signal });
    await h.fake.waitForRequests(1);
    controller.abort();

    await expect(turn).rejects.toMatchObject({ name: "AbortError" });
    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ messages: 1 });
    expect(errorLogs(h)).toEqual([]);
  });

  it("rejects at once when the signal is already aborted, saving nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(h.turn("never mind", { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
    expect(await h.agent.sessionInfo(h.sessionKey)).toMatchObject({ messages: 0 });
    expect(h.fake.requests).toHaveLength(0);
  });
});
