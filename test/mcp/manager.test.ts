/** The MCP engine against real servers: the reference everything server over each transport, and the fault server. */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mcpDefinitionsDir } from "../../src/mcp/definitions.js";
import type { McpManager } from "../../src/mcp/manager.js";
import { McpCallError } from "../../src/mcp/errors.js";
import { eventually } from "../helpers/wait.js";
import { connected, everythingStdio, faultServer, freePort, makeManager, startEverythingHttp, type HttpServerProcess } from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function managed(input: Record<string, unknown>, opts: Parameters<typeof makeManager>[1] = {}) {
  const t = await makeManager(input, opts);
  cleanups.push(() => t.manager.stop());
  await t.manager.start();
  return t;
}

async function httpServer(mode: "streamableHttp" | "sse"): Promise<HttpServerProcess> {
  const server = await startEverythingHttp(mode);
  cleanups.push(() => server.close());
  return server;
}

function textOf(result: Awaited<ReturnType<McpManager["call"]>>): string {
  return result.parts.map((p) => (p.type === "text" ? p.text : `<image ${p.mediaType}>`)).join("\n");
}

describe("the everything server", () => {
  it("over stdio: lists its tools, echoes, returns images and resources, and saves mcps/<id>/", async () => {
    const { manager, dataDir } = await managed({ servers: { everything: everythingStdio() } });
    await connected(manager, "everything");
    const view = manager.get("everything");
    expect(view?.status.transport).toBe("stdio");
    expect(view?.definition?.serverName).toBe("Everything Reference Server");
    const echo = view?.definition?.tools.find((t) => t.name === "echo");
    expect(echo?.inputSchema).toMatchObject({ properties: { message: { type: "string" } }, required: ["message"] });
    expect(view?.definition?.instructions).toContain("Everything Server");

    expect(textOf(await manager.call("everything", "echo", { message: "hello over stdio" }))).toBe("Echo: hello over stdio");
    const image = await manager.call("everything", "get-tiny-image", {});
    expect(image.parts.some((p) => p.type === "image" && p.mediaType === "image/png" && p.data.length > 100)).toBe(true);
    const resource = textOf(await manager.call("everything", "get-resource-reference", { resourceType: "Text", resourceId: 1 }));
    expect(resource).toMatch(/\[resource demo:\/\/resource\/dynamic\/text\/1 \(text\/plain\)\]\nResource 1:/);

    const dir = join(mcpDefinitionsDir(dataDir), "everything");
    const metadata = JSON.parse(await readFile(join(dir, "SERVER_METADATA.json"), "utf8")) as { tools: string[]; serverName: string };
    expect(metadata.serverName).toBe("Everything Reference Server");
    expect(metadata.tools).toContain("echo");
    expect(await readFile(join(dir, "INSTRUCTIONS.md"), "utf8")).toContain("Everything Server");
    expect(await readdir(join(dir, "tools"))).toContain("echo.json");
  });

  it("over Streamable HTTP", async () => {
    const http = await httpServer("streamableHttp");
    const { manager } = await managed({ servers: { remote: { url: http.url } } });
    await connected(manager, "remote");
    expect(manager.get("remote")?.status.transport).toBe("streamable-http");
    expect(textOf(await manager.call("remote", "echo", { message: "over http" }))).toBe("Echo: over http");
  });

  it("over Streamable HTTP, notices a server that went away at the next call, and reconnects when it is back", async () => {
    const first = await startEverythingHttp("streamableHttp");
    const { manager } = await managed({ servers: { remote: { url: first.url } } });
    await connected(manager, "remote");
    await first.close();
    await expect(manager.call("remote", "echo", { message: "anyone?" })).rejects.toMatchObject({ sessionLost: true });
    await eventually(() => manager.get("remote")?.status.state !== "connected", "the loss to be noticed");
    const again = await startEverythingHttp("streamableHttp", Number(new URL(first.url).port));
    cleanups.push(() => again.close());
    await connected(manager, "remote");
    expect(textOf(await manager.call("remote", "echo", { message: "back" }))).toBe("Echo: back");
  });

  it("falls back to HTTP+SSE when the server only speaks that", async () => {
    const http = await httpServer("sse");
    const { manager } = await managed({ servers: { old: { url: http.url } } });
    await connected(manager, "old");
    expect(manager.get("old")?.status.transport).toBe("sse");
    expect(textOf(await manager.call("old", "get-sum", { a: 2, b: 40 }))).toContain("42");
  });
});

describe("faults", () => {
  it("a server that exits at start fails with its stderr as the reason, and is retried with backoff", async () => {
    const { manager, logs } = await managed({ servers: { broken: faultServer("exit-at-start") } });
    const status = await eventually(() => {
      const s = manager.get("broken")?.status;
      return s?.state === "failed" ? s : undefined;
    }, "the failure", 30_000);
    expect(status.error).toContain("Connection closed");
    expect(status.stderr).toContain("missing FAKE_API_KEY");
    expect(status.retryAt).toBeDefined();
    await eventually(() => logs.filter((l) => l.msg === "MCP server failed to connect").length >= 2, "a second attempt", 30_000);
    await expect(manager.call("broken", "add", { a: 1 })).rejects.toThrow(/not connected right now \(failed: .*Connection closed\)/);
  });

  it("a command that does not exist and an HTTP server that is not there fail with the reason", async () => {
    const closedPort = await freePort();
    const { manager } = await managed({
      servers: { missing: { command: "switchboard-no-such-command" }, gone: { url: `http://127.0.0.1:${closedPort}/mcp` } },
    });
    const missing = await eventually(() => manager.get("missing")?.status.error, "the spawn failure");
    expect(missing).toContain("ENOENT");
    const gone = await eventually(() => manager.get("gone")?.status.error, "the HTTP failure");
    expect(gone).toContain("ECONNREFUSED");
  });

  it("a hanging tool times out; an error result and a throwing handler come back as errors", async () => {
    const { manager } = await managed({ callTimeoutMs: 500, servers: { faults: faultServer() } });
    await connected(manager, "faults");
    const hang = manager.call("faults", "hang", {});
    await expect(hang).rejects.toMatchObject({ reason: "timeout", message: expect.stringContaining("within 500 ms") });
    const failed = await manager.call("faults", "fail", {});
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("the backend said no");
    const thrown = await manager.call("faults", "throw", {});
    expect(thrown).toMatchObject({ isError: true });
    expect(textOf(thrown)).toContain("handler blew up");
    // Still usable after all that.
    expect(textOf(await manager.call("faults", "add", { a: 2, b: 3 }))).toBe("5");
  });

  it("a crash mid-call is an error, and the server is reconnected", async () => {
    const { manager } = await managed({ servers: { faults: faultServer() } });
    await connected(manager, "faults");
    await expect(manager.call("faults", "crash", {})).rejects.toBeInstanceOf(McpCallError);
    await eventually(() => manager.get("faults")?.status.state === "failed", "the crash to be noticed", 10_000);
    await connected(manager, "faults");
    expect(textOf(await manager.call("faults", "add", { a: 1, b: 1 }))).toBe("2");
  });

  it("follows notifications/tools/list_changed", async () => {
    const { manager, dataDir } = await managed({ servers: { faults: faultServer() } });
    await connected(manager, "faults");
    expect(manager.get("faults")?.definition?.tools.map((t) => t.name)).not.toContain("extra_1");
    await manager.call("faults", "grow", {});
    await eventually(() => manager.get("faults")?.definition?.tools.some((t) => t.name === "extra_1"), "the new tool", 10_000);
    const savedTools = join(mcpDefinitionsDir(dataDir), "faults", "tools");
    // The folder is replaced as a whole: for an instant it may be missing.
    await eventually(async () => (await readdir(savedTools).catch((): string[] => [])).includes("extra_1.json"), "the saved tool");
  });

  it("caps long output and marks the cut", async () => {
    const { manager } = await managed({ maxOutputChars: 1_000, servers: { everything: everythingStdio() } });
    await connected(manager, "everything");
    const text = textOf(await manager.call("everything", "echo", { message: "x".repeat(5_000) }));
    expect(text.length).toBeLessThan(1_200);
    expect(text).toContain("more characters cut: the output is capped at 1000");
  });

  it("stop kills the stdio child", async () => {
    const { manager } = await makeManager({ servers: { faults: faultServer() } });
    await manager.start();
    await connected(manager, "faults");
    const pid = manager.get("faults")?.status.pid ?? 0;
    expect(isAlive(pid)).toBe(true);
    await manager.stop();
    expect(manager.get("faults")?.status.state).toBe("stopped");
    expect(isAlive(pid)).toBe(false);
  });
});

describe("last known definitions", () => {
  it("are shown at start from the data dir while the server is not connected", async () => {
    const first = await managed({ servers: { faults: faultServer() } });
    await connected(first.manager, "faults");
    await first.manager.stop();
    // Same id, now a server that cannot start: the saved tools are still known.
    const { manager } = await managed({ servers: { faults: faultServer("exit-at-start") } }, { dataDir: first.dataDir });
    expect(manager.get("faults")?.definition?.tools.map((t) => t.name)).toContain("add");
    expect(manager.get("faults")?.status.state).not.toBe("connected");
  });
});

describe("prompt token budget", () => {
  it("the log warns once the full section passes mcp.promptTokenBudget", async () => {
    const { manager, logs } = await managed({ promptTokenBudget: 50, servers: { everything: everythingStdio() } });
    await connected(manager, "everything");
    const warning = await eventually(() => logs.find((l) => l.msg.includes("over mcp.promptTokenBudget (50)")), "the budget warning");
    expect(warning).toMatchObject({ level: 40, budget: 50, tokens: manager.promptTokens() });
  });
});

describe("sandbox: true", () => {
  it("is refused without a sandbox, never run unconfined", async () => {
    const { manager } = await managed({ servers: { boxed: { ...faultServer(), sandbox: true } } });
    const status = await eventually(() => manager.get("boxed")?.status.error, "the refusal");
    expect(status).toContain("sandbox: true, but no sandbox is available");
  });

  it("runs the command the sandbox wrapper returns", async () => {
    const seen: string[] = [];
    const { manager } = await managed(
      { servers: { boxed: { command: "not-a-real-command", args: [], sandbox: true, env: { FAKE_MCP_TOKEN: "tok-123" } } } },
      {
        wrapCommand: (spec) => {
          seen.push(spec.command);
          return { ...faultServer(), env: spec.env };
        },
      },
    );
    await connected(manager, "boxed");
    expect(seen[0]).toBe("not-a-real-command");
    expect(textOf(await manager.call("boxed", "secret_env", {}))).toContain("token=tok-123 llm=(none)");
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
