import { createHash } from "node:crypto";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Receipt } from "../../src/media/receipts.js";
import { assertToolDefinitionsValid } from "../handlers/tool-rules.js";
import { inbound, startImHarness, type ImHarness } from "./harness.js";
import { PNG } from "./media-fixtures.js";
import { TestChannel } from "./test-channel.js";

let h: ImHarness;
afterEach(async () => {
  await h.close();
});

interface DeliverOutput {
  ok: boolean;
  receipts: Receipt[];
  note?: string;
}

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");
const deliver = (input: unknown, ctx = h.context()): Promise<DeliverOutput> => h.output<DeliverOutput>("deliver_artifacts", input, ctx);
const telegram = (): TestChannel => h.channels.get("telegram")!;

describe("deliver_artifacts", () => {
  it("has definitions that follow the shared rules", async () => {
    h = await startImHarness();
    assertToolDefinitionsValid(h.registry.listTools().filter((tool) => h.registry.handlerOf(tool.name) === "im_channel"));
  });

  it("uploads a workspace file to the chat and returns a receipt with the platform's message id", async () => {
    h = await startImHarness();
    await h.writeWorkspaceFile("reports/summary.txt", "quarterly numbers");
    const ctx = h.context({ message: inbound("send the report", { platformMessageId: "4711" }) });

    const result = await deliver({ artifacts: [{ type: "file", path: "reports/summary.txt", caption: "Here it is" }] }, ctx);

    const [sent] = telegram().received;
    expect(sent?.bytes.toString()).toBe("quarterly numbers");
    expect(sent?.file).toMatchObject({ kind: "file", name: "summary.txt", mime: "text/plain", caption: "Here it is" });
    expect(sent?.to).toEqual({ channel: "telegram", chatId: "chat-1" });
    expect(sent?.replyTo).toBe("4711");
    expect(result.ok).toBe(true);
    expect(result.receipts).toEqual([
      expect.objectContaining({
        index: 0,
        type: "file",
        path: "reports/summary.txt",
        name: "summary.txt",
        size: 17,
        sha256: sha256("quarterly numbers"),
        mime: "text/plain",
        status: "delivered",
        error_code: null,
        channel: "telegram",
        chat_id: "chat-1",
        message_id: sent?.messageId,
      }),
    ]);
    expect(Date.parse(result.receipts[0]!.delivered_at!)).not.toBeNaN();
    const ledger = await h.im.ledger.list({ chat: "telegram:chat-1" });
    expect(ledger).toEqual([expect.objectContaining({ message_id: sent?.messageId, session_key: "telegram:chat-1", trace_id: "trace-test" })]);
  });

  it("reports each artifact of a mixed batch on its own, and ok=false", async () => {
    h = await startImHarness({ channels: [new TestChannel("telegram", { maxUploadBytes: 1000 })] });
    await h.writeWorkspaceFile("good.txt", "fine");
    await h.writeWorkspaceFile("big.bin", Buffer.alloc(1001));

    const result = await deliver({
      artifacts: [
        { type: "file", path: "good.txt" },
        { type: "file", path: "missing.txt" },
        { type: "file", path: "big.bin" },
      ],
    });

    expect(result.ok).toBe(false);
    expect(result.note).toMatch(/Only artifacts with status "delivered" reached the chat/);
    expect(result.receipts.map((r) => [r.index, r.status, r.error_code])).toEqual([
      [0, "delivered", null],
      [1, "failed", "not_found"],
      [2, "failed", "too_large"],
    ]);
    expect(result.receipts[2]).toMatchObject({ size: 1001, message_id: null, error: expect.stringMatching(/1001 bytes.*up to 1000/) });
    // The too-large file was refused before any upload.
    expect(telegram().received.map((r) => r.file.name)).toEqual(["good.txt"]);
    expect((await h.im.ledger.list()).map((r) => r.status).sort()).toEqual(["delivered", "failed", "failed"]);
  });

  it("refuses paths outside the workspace: .., absolute and symlinks", async () => {
    h = await startImHarness();
    const secret = join(h.dir, "secret.txt");
    await writeFile(secret, "top secret");
    await mkdir(h.workspaceDir, { recursive: true });
    await symlink(secret, join(h.workspaceDir, "link.txt"));
    await symlink(h.dir, join(h.workspaceDir, "up"));

    const result = await deliver({
      artifacts: [
        { type: "file", path: "../secret.txt" },
        { type: "file", path: secret },
        { type: "file", path: "/etc/passwd" },
        { type: "file", path: "link.txt" },
        { type: "file", path: "up/secret.txt" },
      ],
    });

    expect(result.receipts.map((r) => r.error_code)).toEqual(Array(5).fill("outside_workspace"));
    expect(result.ok).toBe(false);
    expect(telegram().received).toEqual([]);
  });

  it("refuses a directory and a file that is not what its type says", async () => {
    h = await startImHarness();
    await h.writeWorkspaceFile("notes/a.txt", "text");
    await h.writeWorkspaceFile("fake.png", "not an image at all");

    const result = await deliver({
      artifacts: [
        { type: "file", path: "notes" },
        { type: "image", path: "fake.png" },
        { type: "voice", path: "notes/a.txt" },
      ],
    });

    expect(result.receipts.map((r) => r.error_code)).toEqual(["unsupported_type", "unsupported_type", "unsupported_type"]);
    expect(result.receipts[1]!.error).toMatch(/does not look like an image.*type "file"/);
    expect(telegram().received).toEqual([]);
  });

  it("skips what this session already delivered, also after a restart, by content or by dedupe_key", async () => {
    h = await startImHarness();
    await h.writeWorkspaceFile("a.txt", "same bytes");
    const first = await deliver({ artifacts: [{ type: "file", path: "a.txt" }] });

    await h.restart();
    await h.writeWorkspaceFile("copy.txt", "same bytes");
    const again = await deliver({ artifacts: [{ type: "file", path: "copy.txt" }] });

    expect(again.ok).toBe(true);
    expect(again.receipts[0]).toMatchObject({
      status: "skipped",
      error_code: "deduped",
      message_id: first.receipts[0]!.message_id,
      dedupe_key: `sha256:${sha256("same bytes")}`,
    });
    expect(telegram().received).toHaveLength(1);

    await h.writeWorkspaceFile("v1.txt", "version 1");
    await h.writeWorkspaceFile("v2.txt", "version 2");
    await deliver({ artifacts: [{ type: "file", path: "v1.txt", dedupe_key: "weekly-report" }] });
    const keyed = await deliver({ artifacts: [{ type: "file", path: "v2.txt", dedupe_key: "weekly-report" }] });
    expect(keyed.receipts[0]).toMatchObject({ status: "skipped", error_code: "deduped" });

    // Another session (or chat) delivers it all the same.
    const other = await deliver({ artifacts: [{ type: "file", path: "a.txt" }] }, h.context({ sessionKey: "telegram:other" }));
    expect(other.receipts[0]!.status).toBe("delivered");
  });

  it("sends an image the platform refuses as a photo as a file", async () => {
    h = await startImHarness();
    telegram().behaviour.set("image", "refuse");
    await h.writeWorkspaceFile("chart.png", PNG);

    const result = await deliver({ artifacts: [{ type: "image", path: "chart.png" }] });

    expect(result.ok).toBe(true);
    expect(result.receipts[0]).toMatchObject({ status: "delivered", sent_as: "file", mime: "image/png" });
    expect(result.receipts[0]!.warnings?.[0]).toMatch(/refused it as a photo \(Bad Request: PHOTO_INVALID_DIMENSIONS/);
    expect(telegram().received.map((r) => [r.file.kind, r.bytes.equals(PNG)])).toEqual([["file", true]]);
  });

  it("does not resend an image whose upload timed out or dropped: the receipt says timeout", async () => {
    h = await startImHarness({ media: { sendTimeoutMs: 200 } });
    await h.writeWorkspaceFile("photo.png", PNG);
    telegram().behaviour.set("image", "hang");

    const hung = await deliver({ artifacts: [{ type: "image", path: "photo.png" }] });
    telegram().behaviour.set("image", "drop");
    const dropped = await deliver({ artifacts: [{ type: "image", path: "photo.png" }] });

    for (const result of [hung, dropped]) {
      expect(result.ok).toBe(false);
      expect(result.receipts[0]).toMatchObject({ status: "failed", error_code: "timeout", message_id: null });
      expect(result.receipts[0]!.error).toMatch(/do not send it again blindly/);
    }
    expect(hung.receipts[0]!.error).toMatch(/^no confirmation from telegram within 0\.2 s\. The file may still arrive/);
    expect(dropped.receipts[0]!.error).toMatch(/^socket hang up\./);
    // Neither was retried as a file: that could post the picture twice.
    expect(telegram().received).toEqual([]);
    // A timed-out artifact is not remembered as delivered, so the user can ask for it again.
    telegram().behaviour.delete("image");
    expect((await deliver({ artifacts: [{ type: "image", path: "photo.png" }] })).receipts[0]!.status).toBe("delivered");
  });

  it("delivers to another known chat for the owner only", async () => {
    h = await startImHarness();
    await h.writeWorkspaceFile("memo.txt", "for the team");
    await h.directory.touch({ key: "telegram:team", channel: "telegram", chatId: "team", chatType: "group", chatTitle: "Team", userId: "u1", text: "hi" });
    const input = { artifacts: [{ type: "file", path: "memo.txt" }], target: { chat_id: "team" } };
    const guest = h.context({ permissions: { holder: "a member in a direct chat", classes: ["read", "chat", "workspace"] } });
    const owner = h.context({ permissions: { holder: "an owner in a direct chat", classes: ["read", "chat", "workspace", "exec", "admin"] } });

    const refused = await h.call("deliver_artifacts", input, guest);
    expect(refused).toMatchObject({ ok: false, code: "denied", error: expect.stringMatching(/Delivering files to another chat needs the "admin" permission/) });
    const unknown = await h.call("deliver_artifacts", { ...input, target: { chat_id: "nowhere" } }, owner);
    expect(unknown).toMatchObject({ ok: false, code: "invalid_input", error: expect.stringMatching(/No chat nowhere on telegram/) });
    expect(telegram().received).toEqual([]);

    const result = await deliver(input, owner);
    expect(result.receipts[0]).toMatchObject({ status: "delivered", chat_id: "team" });
    expect(telegram().received[0]).toMatchObject({ to: { channel: "telegram", chatId: "team" }, replyTo: undefined });
    // The sender's own chat needs no more than "chat".
    const own = await deliver({ ...input, target: { chat_id: "chat-1" } }, guest);
    expect(own.receipts[0]!.status).toBe("delivered");
  });

  it("rejects malformed input with a clear error and sends nothing", async () => {
    h = await startImHarness();
    const empty = await h.call("deliver_artifacts", { artifacts: [] });
    const badType = await h.call("deliver_artifacts", { artifacts: [{ type: "pdf", path: "a" }] });
    const badMime = await h.call("deliver_artifacts", { artifacts: [{ type: "file", path: "a", mime: "pdf" }] });
    for (const outcome of [empty, badType, badMime]) expect(outcome).toMatchObject({ ok: false, code: "invalid_input" });
    expect(JSON.stringify(badType)).toMatch(/artifacts\.0\.type/);
    expect(telegram().received).toEqual([]);
  });

  it("fails clearly when the target channel is not running", async () => {
    h = await startImHarness({ channels: [] });
    await h.writeWorkspaceFile("a.txt", "x");
    const outcome = await h.call("deliver_artifacts", { artifacts: [{ type: "file", path: "a.txt" }] });
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/telegram channel is not running/) });
  });
});
