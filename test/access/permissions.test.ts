import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ROLES, type Role } from "../../src/access/config.js";
import { permissionsFor } from "../../src/access/permissions.js";
import type { ChatType } from "../../src/core/types.js";
import { HandlerRegistry } from "../../src/handlers/registry.js";
import { requirePermission, RISK_CLASSES, type RiskClass, type ToolDefinition } from "../../src/core/tools.js";
import { offeredToolNamesOf, systemPromptOf } from "../fakes/openai-server.js";
import { captureLog } from "../helpers/captured-log.js";
import { makeToolContext } from "../helpers/tool-context.js";
import { inboundMessage, startHarness, type Harness } from "../agent/harness.js";
import { accessConfig } from "./helpers.js";
import { handlerSpec } from "../helpers/handler-spec.js";

/** The defaults: owner all; member read+chat+workspace+exec in DMs, read+chat in groups; guest read+chat. */
const EXPECTED: Record<Role, Record<ChatType, readonly RiskClass[]>> = {
  owner: { direct: RISK_CLASSES, group: RISK_CLASSES },
  member: { direct: ["read", "chat", "web", "workspace", "exec"], group: ["read", "chat", "web"] },
  guest: { direct: ["read", "chat"], group: ["read", "chat"] },
};
const CHAT_TYPES: ChatType[] = ["direct", "group"];

/** One tool per risk class, e.g. probe_exec; each call is recorded. */
function probeTools(): ToolDefinition[] {
  return RISK_CLASSES.map((risk) => ({
    name: `probe_${risk}`,
    category: "Probes",
    shortDescription: `A probe tool of the ${risk} risk class, for access tests`,
    description: `Records that it ran. Risk class ${risk}.`,
    input: z.object({}),
    risk,
  }));
}

const table = ROLES.flatMap((role) =>
  CHAT_TYPES.flatMap((chatType) =>
    RISK_CLASSES.map((risk) => ({ role, chatType, risk, allowed: EXPECTED[role][chatType].includes(risk) })),
  ),
);

describe("the registry's decision: roles x chat types x risk classes", () => {
  const { log, logs } = captureLog([]);
  const ran: string[] = [];
  const registry = new HandlerRegistry({ log, defaultTimeoutMs: 1_000 });
  registry.register(handlerSpec("probes", async (tool) => ran.push(tool), probeTools()));

  it.each(table)("$role in a $chatType chat, $risk tool: allowed=$allowed", async ({ role, chatType, risk, allowed }) => {
    ran.length = 0;
    const permissions = permissionsFor(accessConfig(), role, chatType);
    const ctx = makeToolContext({ chatType, channel: "telegram", chatId: "c-9", senderId: "u-7", permissions });
    const outcome = await registry.executeByTool(`probe_${risk}`, {}, ctx);
    if (allowed) {
      expect(outcome.ok).toBe(true);
      expect(ran).toEqual([`probe_${risk}`]);
      return;
    }
    expect(outcome).toMatchObject({ ok: false, code: "denied" });
    expect(outcome.ok ? "" : outcome.error).toContain(`needs the "${risk}" permission, which a${role === "owner" ? "n" : ""} ${role} in a ${chatType} chat does not have`);
    expect(ran).toEqual([]);
    const audit = logs.filter((l) => l.msg === "tool call refused").at(-1);
    expect(audit).toMatchObject({ tool: `probe_${risk}`, channel: "telegram", userId: "u-7", chatId: "c-9" });
  });

  it("refuses before looking at the input, so a refused caller learns nothing about the tool", async () => {
    const permissions = permissionsFor(accessConfig(), "guest", "group");
    const outcome = await registry.executeByTool("probe_exec", { not: "valid" }, makeToolContext({ permissions }));
    expect(outcome).toMatchObject({ ok: false, code: "denied" });
  });

  it("refuses a handler's own stricter check (requirePermission) and audits it", async () => {
    registry.register(handlerSpec(
      "cross-chat",
      async (_tool, _input, ctx) => requirePermission(ctx, "admin", "Sending to another chat"),
      [{ ...probeTools()[1]!, name: "send_elsewhere", risk: "chat" }]));
    const permissions = permissionsFor(accessConfig(), "member", "direct");
    const outcome = await registry.executeByTool("send_elsewhere", {}, makeToolContext({ permissions }));
    expect(outcome).toMatchObject({ ok: false, code: "denied", error: expect.stringContaining('Sending to another chat needs the "admin" permission') });
    expect(logs.filter((l) => l.msg === "tool call refused").at(-1)).toMatchObject({ tool: "send_elsewhere" });
  });
});

describe("what the model is shown", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("sends only the tools the sender may use, and names none of the others in the prompt", async () => {
    h = await startHarness();
    h.registry.register(handlerSpec("probes", async () => "ran", probeTools()));
    h.fake.respondWith(() => ({ text: "ok" }));
    for (const role of ROLES) {
      for (const chatType of CHAT_TYPES) {
        const permissions = permissionsFor(accessConfig(), role, chatType);
        const message = inboundMessage("hi", { chat: { id: "chat-1", type: chatType } });
        await h.turn("hi", { message, permissions });
        const request = h.fake.requests.at(-1)!;
        const expected = EXPECTED[role][chatType].map((risk) => `probe_${risk}`);
        const hidden = RISK_CLASSES.map((risk) => `probe_${risk}`).filter((name) => !expected.includes(name));
        for (const name of hidden) expect(systemPromptOf(request), `${role} in ${chatType}`).not.toContain(name);
        const offered = offeredToolNamesOf(request).filter((n) => n.startsWith("probe_"));
        expect(offered, `${role} in ${chatType}`).toEqual(expected);
      }
    }
  });

  it("refuses a call to a tool the sender may not use, and the model gets the refusal as the tool's result", async () => {
    h = await startHarness();
    const ran: string[] = [];
    h.registry.register(handlerSpec("probes", async (tool) => ran.push(tool), probeTools()));
    h.fake.enqueue({ toolCalls: [{ name: "probe_exec", arguments: {} }] }, { text: "Sorry, I may not run that here." });
    const permissions = permissionsFor(accessConfig(), "guest", "group");
    const result = await h.turn("run it", { permissions });
    expect(result.text).toBe("Sorry, I may not run that here.");
    expect(ran).toEqual([]);
    // Not in this sender's tool set: the refusal names the permission, and no other tool is listed.
    const [refusal] = h.fake.lastToolResults();
    const text = JSON.stringify(refusal?.content);
    expect(text).toMatch(/The tool probe_exec needs the \\"exec\\" permission, which a guest in a group chat does not have/);
    expect(text).not.toMatch(/unavailable tool|probe_read/);
  });
});
