/** The gate's decisions on its own: which calls wait, what the request shows, and how a failure to ask ends. */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ApprovalGate } from "../../src/approvals/gate.js";
import { approvalsConfigSchema } from "../../src/approvals/config.js";
import { ApprovalRequests } from "../../src/approvals/requests.js";
import { TurnTaint } from "../../src/core/approval-context.js";
import type { ButtonMessages } from "../../src/core/button-messages.js";
import type { ToolDefinition } from "../../src/core/tools.js";
import { createStore, type Store } from "../../src/infra/store/index.js";
import { ManualClock } from "../helpers/clock.js";
import { captureLog } from "../helpers/captured-log.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { eventually } from "../helpers/wait.js";

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const shell: ToolDefinition = {
  name: "run_shell",
  category: "System",
  shortDescription: "Run a shell command in the sandbox and return its output",
  description: "",
  input: z.object({ command: z.string() }),
  risk: "exec",
};
const lookup: ToolDefinition = { ...shell, name: "lookup", risk: "read" };

interface Sent {
  text: string;
  labels: string[][];
}

async function gateWith(settings: Record<string, unknown>, messages?: ButtonMessages) {
  const { log, logs } = captureLog([]);
  store = await createStore({ url: null, dataDir: await mkdtemp(join(tmpdir(), "switchboard-approvals-")), log });
  const sent: Sent[] = [];
  const recording: ButtonMessages = {
    send: async (_to, text, rows) => {
      sent.push({ text, labels: rows.map((row) => row.map((b) => b.label)) });
      return [];
    },
  };
  const requests = new ApprovalRequests(store, log);
  const clock = new ManualClock(Date.now());
  const gate = new ApprovalGate({
    settings: approvalsConfigSchema.parse(settings),
    requests,
    grants: store.namespace("approvals"),
    messages: messages ?? recording,
    ownersOn: () => [],
    secrets: ["sk-configured-secret"],
    clock,
    log,
  });
  return { gate, sent, requests, clock, log, logs };
}

describe("the approval gate", () => {
  it("tainted: an exec tool runs directly until the turn took in third-party content, then waits", async () => {
    const { gate, sent, requests } = await gateWith({});
    const taint = new TurnTaint();
    const ctx = makeToolContext({ taint });
    expect(await gate.admit({ tool: shell, input: { command: "ls" }, ctx })).toEqual({ run: true });
    expect(await gate.admit({ tool: lookup, input: { command: "ls" }, ctx })).toEqual({ run: true });
    taint.mark("MCP output");
    const waiting = gate.admit({ tool: shell, input: { command: "ls" }, ctx });
    await eventually(() => sent[0], "the request");
    expect(sent[0]!.text).toContain("Asked because this turn took in MCP output");
    // No owners on the channel: no "Always" row.
    expect(sent[0]!.labels).toEqual([["Approve once", "Deny"]]);
    const [pending] = await requests.pending();
    await requests.decide(pending!.id, "approved", "web:user-1", Date.now());
    expect(await waiting).toMatchObject({ run: true, note: { decision: "approved", by: "web:user-1" } });
  });

  it("off lets everything run; the class of a call can depend on its input (an MCP server's own class)", async () => {
    const off = await gateWith({ mode: "off" });
    expect(await off.gate.admit({ tool: shell, input: { command: "ls" }, ctx: makeToolContext() })).toEqual({ run: true });
    await store?.close();
    const always = await gateWith({ mode: "always" });
    const byServer: ToolDefinition = { ...lookup, riskOf: (input) => ((input as { command: string }).command === "exec-server" ? "exec" : "read") };
    expect(await always.gate.admit({ tool: byServer, input: { command: "read-server" }, ctx: makeToolContext() })).toEqual({ run: true });
    void always.gate.admit({ tool: byServer, input: { command: "exec-server" }, ctx: makeToolContext() });
    await eventually(() => always.sent[0], "the request for the exec-class call");
  });

  it("shows the call with configured secrets and secret-shaped values blanked", async () => {
    const { gate, sent } = await gateWith({ mode: "always" });
    const command = "curl -H 'Authorization: Bearer abcdefghijklmnop' https://bob:hunter22@example.com/?api_key=sk-configured-secret --password=swordfish";
    void gate.admit({ tool: shell, input: { command }, ctx: makeToolContext() });
    const { text } = await eventually(() => sent[0], "the request");
    expect(text).toContain("command: curl -H 'Authorization: [REDACTED] [REDACTED]' https://[REDACTED]@example.com/?api_key=[REDACTED] --password=[REDACTED]");
    for (const secret of ["abcdefghijklmnop", "hunter22", "sk-configured-secret", "swordfish"]) expect(text).not.toContain(secret);
  });

  it("a request that cannot be sent refuses the call and says so; the turn's cancel ends the wait", async () => {
    const failing: ButtonMessages = { send: () => Promise.reject(new Error("platform down")) };
    const { gate, log, logs } = await gateWith({ mode: "always" }, failing);
    const verdict = await gate.admit({ tool: shell, input: { command: "ls" }, ctx: makeToolContext({ log }) });
    expect(verdict).toMatchObject({ run: false, code: "denied", reason: expect.stringMatching(/could not be asked for/) });
    expect(logs.find((r) => r.msg === "could not ask for approval; the call is refused")).toBeDefined();

    await store?.close();
    const waiting = await gateWith({ mode: "always" });
    const controller = new AbortController();
    const admitted = waiting.gate.admit({ tool: shell, input: { command: "ls" }, ctx: makeToolContext({ signal: controller.signal }) });
    await eventually(() => waiting.sent[0], "the request");
    controller.abort();
    expect(await admitted).toMatchObject({ run: false, code: "aborted" });
    expect(await waiting.requests.pending()).toHaveLength(1);
  });
});
