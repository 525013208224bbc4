/**
 * The desktop feature in a whole gateway: its virtual display starts with the gateway, the owner's screenshot
 * arrives in the asking chat through the media Deliverer with a receipt, a member is refused, and every action is
 * logged with who asked.
 */
import { afterEach, describe, expect, it } from "vitest";
import { desktopConfigSchema, desktopUnavailable } from "../../src/desktop/index.js";
import { startTestGateway, type TestGateway } from "../e2e/harness.js";

const missing = await desktopUnavailable(desktopConfigSchema.parse({ enabled: true }));

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe.skipIf(missing !== null)(`the desktop feature in the gateway${missing ? ` (skipped: ${missing})` : ""}`, () => {
  it("delivers the owner's screenshot to the asking chat with a receipt, and refuses a member", async () => {
    t = await startTestGateway({
      http: { token: "desktop-test-token" },
      access: { web: { users: "policy" }, owners: ["web:alice"], dmPolicy: "open" },
      desktop: { enabled: true, display: "auto", size: "800x600" },
      llm: { vision: true },
    } as never);
    t.fake.enqueue({ toolCalls: [{ name: "desktop_screenshot", arguments: {} }] }, { text: "here it is" });
    const answer = await t.post({ chatId: "desk", userId: "alice", text: "screenshot please" });
    const replies = answer.body.replies as Array<{ text: string; attachments: Array<{ url: string; name: string }> }>;
    const withFile = replies.find((reply) => reply.attachments.length > 0);
    const png = Buffer.from(await (await fetch(`${t.url}${withFile!.attachments[0]!.url}`, { headers: { authorization: "Bearer desktop-test-token" } })).arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual({ width: 800, height: 600 });
    const toolMessage = JSON.stringify(t.fake.requests.at(-1)?.body.messages);
    expect(toolMessage).toMatch(/status[\\"]+:[\\"]+delivered/);
    expect(toolMessage).toContain("image/png");
    expect(t.logs.some((record) => record.msg === "desktop action" && record.senderId === "alice" && record.tool === "desktop_screenshot")).toBe(true);

    t.fake.enqueue({ toolCalls: [{ name: "desktop_type", arguments: { text: "rm -rf ~\n" } }] }, { text: "refused" });
    await t.post({ chatId: "desk-bob", userId: "bob", text: "type this" });
    expect(JSON.stringify(t.fake.lastToolResults())).toContain('needs the \\"admin\\" permission');
    expect(t.logs.some((record) => record.msg === "desktop action" && record.senderId === "bob")).toBe(false);
  }, 30_000);
});
