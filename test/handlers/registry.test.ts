import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import { ToolError, type ToolDefinition } from "../../src/core/tools.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { handlerSpec, type TestToolRun } from "../helpers/handler-spec.js";

function tool(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    category: "Test",
    shortDescription: `Test tool ${name} used by the registry tests`,
    description: `A test tool named ${name}.`,
    input: z.object({ text: z.string(), count: z.number().int().min(1).default(1) }),
    risk: "read",
    ...extra,
  };
}

/** A registry whose log lines are kept as parsed objects. */
function makeRegistry(defaultTimeoutMs = 5000): { registry: HandlerRegistry; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { registry: new HandlerRegistry({ log, defaultTimeoutMs }), lines };
}

const echo: TestToolRun = async (name, input) => ({ name, input });

describe("HandlerRegistry registration", () => {
  it("maps tools to their handler and lists them in registration order", () => {
    const { registry } = makeRegistry();
    registry.register(handlerSpec("first", echo, [tool("alpha"), tool("beta")]));
    registry.register(handlerSpec("second", echo, [tool("gamma")]));
    expect(registry.listTools().map((t) => t.name)).toEqual(["alpha", "beta", "gamma"]);
    expect(registry.handlerOf("gamma")).toBe("second");
    expect(registry.hasTool("beta")).toBe(true);
    expect(registry.getTool("delta")).toBeUndefined();
  });

  it("refuses a tool name registered twice, keeping the first registration", () => {
    const { registry } = makeRegistry();
    registry.register(handlerSpec("first", echo, [tool("alpha")]));
    expect(() => registry.register(handlerSpec("second", echo, [tool("beta"), tool("alpha")]))).toThrow(
      /"alpha" is already registered by "first"/,
    );
    expect(registry.handlerOf("alpha")).toBe("first");
    expect(registry.hasTool("beta")).toBe(false);
  });

  it("refuses a duplicate within one registration", () => {
    const { registry } = makeRegistry();
    expect(() => registry.register(handlerSpec("first", echo, [tool("alpha"), tool("alpha")]))).toThrow(/already registered/);
    expect(registry.listTools()).toEqual([]);
  });

  it("refuses short descriptions outside 30-80 characters and names that are not snake_case", () => {
    const { registry } = makeRegistry();
    expect(() => registry.register(handlerSpec("h", echo, [tool("alpha", { shortDescription: "Too short" })]))).toThrow(
      /shortDescription of 9 characters; it must have 30-80/,
    );
    expect(() => registry.register(handlerSpec("h", echo, [tool("alpha", { shortDescription: "x".repeat(81) })]))).toThrow(
      /81 characters/,
    );
    expect(() => registry.register(handlerSpec("h", echo, [tool("Read-File")]))).toThrow(/snake_case/);
    expect(registry.listTools()).toEqual([]);
  });
});

describe("HandlerRegistry.executeByTool", () => {
  it("passes the parsed input, defaults applied, and returns the output as-is", async () => {
    const { registry } = makeRegistry();
    registry.register(handlerSpec("h", echo, [tool("alpha")]));
    const outcome = await registry.executeByTool("alpha", { text: "hi" }, makeToolContext());
    expect(outcome).toEqual({ ok: true, tool: "alpha", output: { name: "alpha", input: { text: "hi", count: 1 } } });
  });

  it("lists every validation problem as path: message without running the handler", async () => {
    const { registry } = makeRegistry();
    let ran = false;
    registry.register(handlerSpec("h", async () => (ran = true), [tool("alpha")]));
    const outcome = await registry.executeByTool("alpha", { count: 0 }, makeToolContext());
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe("invalid_input");
    expect(outcome.error).toMatch(/^Invalid input for alpha:/);
    expect(outcome.error).toMatch(/- text: .*expected string/);
    expect(outcome.error).toMatch(/- count: .*>=1/);
    expect(ran).toBe(false);
  });

  it("names the whole input when it is not an object at all", async () => {
    const { registry } = makeRegistry();
    registry.register(handlerSpec("h", echo, [tool("alpha")]));
    const outcome = await registry.executeByTool("alpha", "just text", makeToolContext());
    expect(outcome).toMatchObject({ ok: false, code: "invalid_input" });
    if (!outcome.ok) expect(outcome.error).toMatch(/- \(input\): .*expected object/);
  });

  it("answers an unknown tool with \"no such tool\" and the close names", async () => {
    const { registry } = makeRegistry();
    registry.register(handlerSpec("h", echo, [tool("schedule_task"), tool("list_scheduled_tasks"), tool("read_file")]));
    const outcome = await registry.executeByTool("schedule_taks", {}, makeToolContext());
    expect(outcome).toMatchObject({ ok: false, tool: "schedule_taks", code: "unknown_tool" });
    if (outcome.ok) return;
    expect(outcome.error).toBe('No such tool "schedule_taks". Closest tools: schedule_task.');
  });

  it("returns a ToolError's code and message", async () => {
    const { registry } = makeRegistry();
    registry.register(handlerSpec("h", async () => Promise.reject(new ToolError("no such note", "denied")), [tool("alpha")]));
    const outcome = await registry.executeByTool("alpha", { text: "x" }, makeToolContext());
    expect(outcome).toEqual({ ok: false, tool: "alpha", code: "denied", error: "no such note" });
  });

  it("turns any other throw, even a synchronous one, into failed and logs it once with its context", async () => {
    const { registry, lines } = makeRegistry();
    const throwsNow = ((): never => {
      throw new Error("disk on fire");
    }) as unknown as TestToolRun;
    registry.register(handlerSpec("h", throwsNow, [tool("alpha")]));
    const ctx = makeToolContext({ sessionKey: "telegram:42", traceId: "trace-9" });
    const outcome = await registry.executeByTool("alpha", { text: "x" }, ctx);
    expect(outcome).toEqual({ ok: false, tool: "alpha", code: "failed", error: "disk on fire" });
    const errors = lines.filter((line) => line.msg === "tool failed");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ tool: "alpha", session: "telegram:42", traceId: "trace-9" });
  });

  it("writes one debug line per call with tool, duration, outcome and trace id", async () => {
    const { registry, lines } = makeRegistry();
    registry.register(handlerSpec("h", echo, [tool("alpha")]));
    await registry.executeByTool("alpha", { text: "x" }, makeToolContext({ traceId: "trace-1" }));
    await registry.executeByTool("alpha", {}, makeToolContext({ traceId: "trace-2" }));
    const calls = lines.filter((line) => line.msg === "tool call");
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ tool: "alpha", ok: true, traceId: "trace-1", level: 20 });
    expect(calls[1]).toMatchObject({ tool: "alpha", ok: false, code: "invalid_input", traceId: "trace-2" });
    expect(typeof calls[0]?.durationMs).toBe("number");
  });

  it("times out a handler that never settles, and aborts the signal it was given", async () => {
    const { registry } = makeRegistry(60_000);
    let handlerSignal: AbortSignal | undefined;
    const never: TestToolRun = (_name, _input, ctx) => {
      handlerSignal = ctx.signal;
      return new Promise(() => {});
    };
    registry.register(handlerSpec("h", never, [tool("alpha", { timeoutMs: 50 })]));
    const outcome = await registry.executeByTool("alpha", { text: "x" }, makeToolContext());
    expect(outcome).toEqual({ ok: false, tool: "alpha", code: "timeout", error: "alpha timed out after 50 ms" });
    expect(handlerSignal?.aborted).toBe(true);
  });

  it("uses the registry's default timeout when the tool sets none", async () => {
    const { registry } = makeRegistry(30);
    registry.register(handlerSpec("h", () => new Promise(() => {}), [tool("alpha")]));
    const outcome = await registry.executeByTool("alpha", { text: "x" }, makeToolContext());
    expect(outcome).toMatchObject({ ok: false, code: "timeout", error: "alpha timed out after 30 ms" });
  });

  it("returns aborted as soon as the turn's signal aborts during the call", async () => {
    const { registry } = makeRegistry(60_000);
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    registry.register(handlerSpec(
      "h",
      () => {
        started();
        return new Promise(() => {});
      },
      [tool("alpha")]));
    const pending = registry.executeByTool("alpha", { text: "x" }, makeToolContext({ signal: controller.signal }));
    await running;
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, tool: "alpha", code: "aborted" });
  });

  it("does not start a tool when the signal is already aborted", async () => {
    const { registry } = makeRegistry();
    let ran = false;
    registry.register(handlerSpec("h", async () => (ran = true), [tool("alpha")]));
    const ctx = makeToolContext({ signal: AbortSignal.abort() });
    const outcome = await registry.executeByTool("alpha", { text: "x" }, ctx);
    expect(outcome).toMatchObject({ ok: false, code: "aborted" });
    expect(ran).toBe(false);
  });
});
