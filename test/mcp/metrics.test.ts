/** switchboard_mcp_calls_total moves with real calls to real MCP servers, by server and outcome. */
import { afterEach, describe, expect, it } from "vitest";
import { metricValue } from "../helpers/metrics.js";
import { eventually } from "../helpers/wait.js";
import { connected, everythingStdio, faultServer, makeManager } from "./helpers.js";

const CALLS = "switchboard_mcp_calls_total";
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function managed(input: Record<string, unknown>) {
  const t = await makeManager(input);
  stops.push(() => t.manager.stop());
  await t.manager.start();
  return t.manager;
}

describe("switchboard_mcp_calls_total", () => {
  it("counts a call the everything server answered as ok", async () => {
    const manager = await managed({ servers: { "metrics-everything": everythingStdio() } });
    await connected(manager, "metrics-everything");
    const before = await metricValue(CALLS, { server: "metrics-everything", outcome: "ok" });

    const result = await manager.call("metrics-everything", "echo", { message: "counted" });
    expect(result.parts).toEqual([{ type: "text", text: "Echo: counted" }]);
    expect(await metricValue(CALLS, { server: "metrics-everything", outcome: "ok" })).toBe(before + 1);
  });

  it("counts an error result, a timeout and a call to a server that is not connected, each by its outcome", async () => {
    const manager = await managed({ callTimeoutMs: 300, servers: { "metrics-faults": faultServer(), "metrics-missing": { command: "switchboard-no-such-command" } } });
    await connected(manager, "metrics-faults");
    const value = (server: string, outcome: string) => metricValue(CALLS, { server, outcome });
    const before = { toolError: await value("metrics-faults", "tool_error"), timeout: await value("metrics-faults", "timeout"), failed: await value("metrics-missing", "failed") };

    expect((await manager.call("metrics-faults", "fail", {})).isError).toBe(true);
    expect(await value("metrics-faults", "tool_error")).toBe(before.toolError + 1);
    await expect(manager.call("metrics-faults", "hang", {})).rejects.toMatchObject({ reason: "timeout" });
    expect(await value("metrics-faults", "timeout")).toBe(before.timeout + 1);

    await eventually(() => manager.get("metrics-missing")?.status.error, "the spawn failure");
    await expect(manager.call("metrics-missing", "anything", {})).rejects.toMatchObject({ reason: "failed" });
    expect(await value("metrics-missing", "failed")).toBe(before.failed + 1);
  });
});
